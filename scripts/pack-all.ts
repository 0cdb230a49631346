/**
 * `pnpm pack:all`: builds every public package and packs it into `.packs/`, then prints the one
 * npm command and the one pnpm setup that install them together, until the packages are on npm.
 *
 * npm resolves `@candor/errors@0.0.0` (a dependency of a tarball) against the other tarballs on
 * the same command line; pnpm does not, so its setup pins each `@candor/*` name to its tarball
 * with `pnpm.overrides`. `.packs/install.json` holds the same facts for scripts (the install test).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { listPublicPackages } from '../install-test/workspace-packages.ts';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, '.packs');
/** zod 4 is a peer dependency of the packages: the user's project installs it once. */
const PEERS = ['zod@^4.1.0'];

export interface PackSet {
  /** Absolute path of each tarball, by package name. */
  readonly tarballs: Readonly<Record<string, string>>;
  readonly npmCommand: string;
  /** The `pnpm` block of a consumer's package.json. */
  readonly pnpmOverrides: Readonly<Record<string, string>>;
  readonly pnpmCommand: string;
}

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function main(): Promise<void> {
  const packages = (await listPublicPackages(ROOT)).filter((p) => p.ready);
  const filters = packages.flatMap((p) => ['--filter', p.name]);
  process.stderr.write(`Building ${packages.length} packages…\n`);
  run('pnpm', ['exec', 'turbo', 'run', 'build', ...filters], ROOT);

  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  for (const pkg of packages) {
    // pnpm pack rewrites `workspace:*` to the version, as pnpm publish does.
    run('pnpm', ['pack', '--pack-destination', OUT], pkg.dir);
  }

  const files = (await readdir(OUT)).filter((f) => f.endsWith('.tgz'));
  const tarballs: Record<string, string> = {};
  for (const pkg of packages) {
    const manifest = JSON.parse(
      await readFile(join(pkg.dir, 'package.json'), 'utf8'),
    ) as { version: string };
    const file = `${pkg.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`;
    if (!files.includes(file)) throw new Error(`pnpm pack made no ${file}`);
    tarballs[pkg.name] = join(OUT, file);
  }
  const paths = Object.values(tarballs);
  const set: PackSet = {
    tarballs,
    npmCommand: ['npm', 'install', ...paths, ...PEERS].join(' '),
    pnpmOverrides: Object.fromEntries(
      Object.entries(tarballs).map(([name, path]) => [name, `file:${path}`]),
    ),
    pnpmCommand: ['pnpm', 'add', ...paths, ...PEERS].join(' '),
  };
  await writeFile(
    join(OUT, 'install.json'),
    `${JSON.stringify(set, null, 2)}\n`,
  );

  const pnpmBlock = JSON.stringify(
    { pnpm: { overrides: set.pnpmOverrides } },
    null,
    2,
  );
  process.stdout.write(
    [
      `Packed ${paths.length} packages into ${OUT}`,
      '',
      'With npm, in your project (a package.json with "type": "module"):',
      '',
      `  ${set.npmCommand}`,
      '',
      'With pnpm, first add this to your package.json (pnpm resolves @candor/* only through it):',
      '',
      pnpmBlock.replace(/^/gm, '  '),
      '',
      'then:',
      '',
      `  ${set.pnpmCommand}`,
      '',
    ].join('\n'),
  );
}

await main();
