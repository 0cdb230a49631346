/** The manifest fields the published-package checks read; everything else passes through. */
export interface PublishedManifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly main?: unknown;
  readonly types?: unknown;
  readonly typings?: unknown;
  readonly module?: unknown;
  readonly bin?: unknown;
  readonly exports?: unknown;
  readonly dependencies?: unknown;
  readonly devDependencies?: unknown;
  readonly peerDependencies?: unknown;
  readonly optionalDependencies?: unknown;
}

/** One file a manifest field points at, with where it was found (`exports["."]["types"]`). */
export interface ManifestTarget {
  readonly field: string;
  readonly target: string;
}

const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

// Ranges that only a pnpm workspace understands; npm and a fresh pnpm project reject them.
const WORKSPACE_PROTOCOLS = ['workspace:', 'catalog:'] as const;

const TEST_FILE = /\.(?:test|spec)(?:-d)?\.[^/]+$/;
const TEST_FOLDER = /(?:^|\/)(?:__fixtures__|__tests__|__mocks__)\//;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `package/dist/x.js` and `./dist/x.js` both become `dist/x.js`, as a tarball lists them. */
export function normaliseTarballPath(path: string): string {
  return path
    .replace(/^package\//, '')
    .replace(/^\.\//, '')
    .replaceAll('\\', '/');
}

/**
 * Every dependency whose range only a workspace understands, as `dependencies["zod"]: catalog:`.
 * pnpm rewrites them on publish; one left behind makes the package uninstallable.
 */
export function findWorkspaceRanges(manifest: PublishedManifest): string[] {
  const found: string[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    const ranges = manifest[field];
    if (!isRecord(ranges)) continue;
    for (const [name, range] of Object.entries(ranges)) {
      if (
        typeof range === 'string' &&
        WORKSPACE_PROTOCOLS.some((protocol) => range.startsWith(protocol))
      ) {
        found.push(`${field}["${name}"]: ${range}`);
      }
    }
  }
  return found;
}

function collectExportTargets(
  value: unknown,
  field: string,
  into: ManifestTarget[],
): void {
  if (typeof value === 'string') {
    into.push({ field, target: value });
  } else if (Array.isArray(value)) {
    value.forEach((fallback, index) => {
      collectExportTargets(fallback, `${field}[${index}]`, into);
    });
  } else if (isRecord(value)) {
    for (const [key, nested] of Object.entries(value)) {
      collectExportTargets(nested, `${field}["${key}"]`, into);
    }
  }
  // null blocks a subpath on purpose: nothing to find in the tarball.
}

/**
 * Every file the manifest points at: each `exports` leaf (every condition, `@candor/source`
 * included), `main`, `types`, `typings`, `module` and each `bin`.
 */
export function manifestTargets(manifest: PublishedManifest): ManifestTarget[] {
  const targets: ManifestTarget[] = [];
  collectExportTargets(manifest.exports, 'exports', targets);
  for (const field of ['main', 'types', 'typings', 'module'] as const) {
    const value = manifest[field];
    if (typeof value === 'string') targets.push({ field, target: value });
  }
  if (typeof manifest.bin === 'string') {
    targets.push({ field: 'bin', target: manifest.bin });
  } else if (isRecord(manifest.bin)) {
    for (const [name, target] of Object.entries(manifest.bin)) {
      if (typeof target === 'string') {
        targets.push({ field: `bin["${name}"]`, target });
      }
    }
  }
  return targets;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

function targetExists(target: string, files: ReadonlySet<string>): boolean {
  const path = normaliseTarballPath(target);
  if (!path.includes('*')) return files.has(path);
  // A subpath pattern ("./features/*.js") is only useful if it matches at least one file.
  const pattern = new RegExp(
    `^${path.split('*').map(escapeRegExp).join('.+')}$`,
  );
  return [...files].some((file) => pattern.test(file));
}

/** Each manifest target that names a file missing from the tarball, as `field → target`. */
export function findMissingTargets(
  manifest: PublishedManifest,
  files: ReadonlySet<string>,
): string[] {
  return manifestTargets(manifest)
    .filter(({ target }) => !targetExists(target, files))
    .map(({ field, target }) => `${field} → ${target}`);
}

/** Test files, type tests and fixtures that slipped into a tarball. */
export function findTestFiles(files: Iterable<string>): string[] {
  return [...files]
    .map(normaliseTarballPath)
    .filter((file) => TEST_FILE.test(file) || TEST_FOLDER.test(file))
    .sort();
}

/** What a published package got wrong, one line per problem; empty when it is fit to install. */
export function checkPublishedPackage(published: {
  readonly manifest: PublishedManifest;
  readonly files: Iterable<string>;
}): string[] {
  const files = new Set([...published.files].map(normaliseTarballPath));
  return [
    ...findWorkspaceRanges(published.manifest).map(
      (range) => `workspace-only range: ${range}`,
    ),
    ...findMissingTargets(published.manifest, files).map(
      (target) => `points at a file missing from the tarball: ${target}`,
    ),
    ...findTestFiles(files).map((file) => `ships a test file: ${file}`),
  ];
}

/**
 * What a user can import from the package: its name for `exports["."]`, and `name/sub` for each
 * other code subpath (`@candor/core/testing`). `./package.json`, patterns and blocked (`null`)
 * subpaths are left out; a manifest without `exports` offers just its name.
 */
export function importSpecifiers(manifest: PublishedManifest): string[] {
  if (typeof manifest.name !== 'string') return [];
  const name = manifest.name;
  if (!isRecord(manifest.exports)) return [name];
  const subpaths = Object.keys(manifest.exports);
  // An exports object of conditions (no key starts with ".") is the main entry alone.
  if (!subpaths.some((key) => key.startsWith('.'))) return [name];
  return subpaths
    .filter(
      (subpath) =>
        subpath !== './package.json' &&
        !subpath.includes('*') &&
        (manifest.exports as Record<string, unknown>)[subpath] !== null,
    )
    .map((subpath) => (subpath === '.' ? name : `${name}${subpath.slice(1)}`));
}
