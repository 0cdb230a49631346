import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The API reference covers every public export only while TypeDoc is set up to fail on a gap:
// each public entry point is one of its entry points, named after its import path (or the
// sidebar shows `langchain/src`), and every public package is validated for documentation with
// warnings as errors. Running TypeDoc itself is `pnpm docs:build`'s job (part of `pnpm test`).
const root = join(import.meta.dirname, '..');

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Record<string, unknown>;
}

interface TypedocConfig {
  readonly entryPoints: readonly string[];
  readonly packagesRequiringDocumentation: readonly string[];
  readonly treatValidationWarningsAsErrors: boolean;
  readonly validation: Readonly<Record<string, boolean>>;
}

const typedoc = JSON.parse(
  readFileSync(join(root, 'typedoc.json'), 'utf8'),
) as TypedocConfig;

const manifests = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({
    dir: entry.name,
    manifest: JSON.parse(
      readFileSync(join(root, 'packages', entry.name, 'package.json'), 'utf8'),
    ) as Manifest,
  }))
  .filter(({ manifest }) => manifest.private !== true);

/** Each public import path and the source file behind it (its `@candor/source` condition). */
const entries = manifests.flatMap(({ dir, manifest }) =>
  Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const source =
      typeof target === 'object' && target !== null
        ? (target as Record<string, unknown>)['@candor/source']
        : undefined;
    if (typeof source !== 'string') return [];
    return [
      {
        entry:
          subpath === '.'
            ? manifest.name
            : `${manifest.name}${subpath.slice(1)}`,
        file: relative(root, join(root, 'packages', dir, source)),
      },
    ];
  }),
);

/** Whether one of TypeDoc's entry points (a path, or one `*` for the package folder) names it. */
function covered(file: string): boolean {
  return typedoc.entryPoints.some((pattern) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
        .join('[^/]+')}$`,
    ).test(file),
  );
}

/** The `@module` name in a file's first doc comment, with TypeDoc's `\@` escape undone. */
function moduleName(file: string): string | undefined {
  const comment = /^\/\*\*[\s\S]*?\*\//.exec(
    readFileSync(join(root, file), 'utf8'),
  )?.[0];
  return /@module\s+(\S+)\s*$/m.exec(comment ?? '')?.[1]?.replace(/^\\/, '');
}

describe('the API reference setup', () => {
  it('finds the public entries (the check below is not vacuous)', () => {
    expect(entries.map(({ entry }) => entry)).toEqual(
      expect.arrayContaining([
        '@candor/core',
        '@candor/core/testing',
        '@candor/langchain',
        '@candor/openai-agents',
      ]),
    );
  });

  it.each(entries)('documents $entry from $file', ({ entry, file }) => {
    expect(covered(file), `${file} is not a TypeDoc entry point`).toBe(true);
    expect(moduleName(file), `${file}: its @module tag`).toBe(entry);
  });

  it('fails the build on an undocumented export of any public package', () => {
    expect(typedoc.validation['notDocumented']).toBe(true);
    expect(typedoc.treatValidationWarningsAsErrors).toBe(true);
    expect([...typedoc.packagesRequiringDocumentation].sort()).toEqual(
      manifests.map(({ manifest }) => manifest.name).sort(),
    );
  });

  it('matches entry points by path, one folder per *', () => {
    expect(covered('packages/langchain/src/index.ts')).toBe(true);
    expect(covered('packages/langchain/src/other.ts')).toBe(false);
  });
});
