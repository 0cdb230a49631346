/**
 * @module The `examples/` projects in the install test: each copied to an empty folder, its
 * `@candor/*` versions set to the version just published, installed with npm from the local
 * registry, and run with `npm start`; every line its README shows under "Expected output" must
 * be printed. Then the same with pnpm, the way the README's "before npm" path goes: `@candor/*`
 * from `pnpm pack:all`'s tarballs through its printed `pnpm.overrides`, third-party packages from
 * the local registry, `pnpm start`. An example may instead print a `skipped: …` line (the Redis
 * fleet without redis-server), which is recorded as a skip, not a pass.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CheckList } from './check-list.ts';
import { type ProcessGroup } from './process-group.ts';

export interface ExampleOptions {
  readonly checks: CheckList;
  readonly processes: ProcessGroup;
  /** The copy of the workspace, whose `examples/` are run. */
  readonly workspace: string;
  readonly work: string;
  readonly registryUrl: string;
  readonly version: string;
  readonly env: (extra?: Readonly<Record<string, string>>) => NodeJS.ProcessEnv;
  /**
   * The `pnpm.overrides` that `pnpm pack:all` printed (each `@candor/*` to its `file:` tarball);
   * without them (pack:all failed, already reported) the pnpm runs are left out.
   */
  readonly pnpmOverrides?: Readonly<Record<string, string>> | undefined;
}

type Manager = 'npm' | 'pnpm';

/** The lines of the `text` block after "Expected output" in an example's README. */
export function expectedLines(readme: string): string[] {
  const match = /Expected output[^\n]*\n+```text\n([\s\S]*?)```/.exec(readme);
  if (match?.[1] === undefined) {
    throw new Error('the README has no ```text block after "Expected output"');
  }
  return match[1].split('\n').filter((line) => line.trim() !== '');
}

function withVersion(
  manifest: Record<string, unknown>,
  version: string,
): Record<string, unknown> {
  const deps = manifest['dependencies'] as Record<string, string> | undefined;
  if (deps === undefined) return manifest;
  const pinned = Object.fromEntries(
    Object.entries(deps).map(([name, range]) => [
      name,
      name.startsWith('@candor/') ? `^${version}` : range,
    ]),
  );
  return { ...manifest, dependencies: pinned };
}

export async function checkExampleProjects(
  options: ExampleOptions,
): Promise<void> {
  const root = join(options.workspace, 'examples');
  const names = (await readdir(root, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  for (const name of names) await checkExample(options, name, 'npm');
  if (options.pnpmOverrides === undefined) return;
  for (const name of names) await checkExample(options, name, 'pnpm');
}

async function checkExample(
  options: ExampleOptions,
  name: string,
  manager: Manager,
): Promise<void> {
  const { checks, processes, workspace, work } = options;
  const source = join(workspace, 'examples', name);
  const dir = join(work, 'examples', manager, name);
  const caches = join(work, 'caches', `examples-${manager}`);
  let skipped: string | undefined;
  const title =
    manager === 'npm'
      ? `example ${name}: npm install from the local registry, npm start, its expected lines`
      : `example ${name}: pnpm install with pack:all's overrides, pnpm start, its expected lines`;
  await checks.check(title, async () => {
    await cp(source, dir, {
      recursive: true,
      filter: (path) => !path.includes('node_modules'),
    });
    const manifest = JSON.parse(
      await readFile(join(dir, 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    const installed =
      manager === 'npm'
        ? withVersion(manifest, options.version)
        : { ...manifest, pnpm: { overrides: options.pnpmOverrides } };
    await writeFile(
      join(dir, 'package.json'),
      `${JSON.stringify(installed, null, 2)}\n`,
    );
    await writeFile(
      join(dir, '.npmrc'),
      manager === 'npm'
        ? `registry=${options.registryUrl}\ncache=${caches}\n`
        : `registry=${options.registryUrl}\nstore-dir=${join(caches, 'store')}\ncache-dir=${join(caches, 'cache')}\n`,
    );
    const expected = expectedLines(
      await readFile(join(dir, 'README.md'), 'utf8'),
    );
    const env = options.env({
      npm_config_userconfig: join(work, 'consumer.npmrc'),
    });
    await processes.runOk(
      manager,
      manager === 'npm' ? ['install', '--no-audit', '--no-fund'] : ['install'],
      { cwd: dir, env },
    );
    const started = await processes.runOk(
      manager,
      manager === 'npm' ? ['start', '--silent'] : ['--silent', 'start'],
      { cwd: dir, env, timeoutMs: 2 * 60_000 },
    );
    const printed = started.stdout.split('\n').map((line) => line.trimEnd());
    skipped = printed.find((line) => line.startsWith('skipped: '));
    if (skipped !== undefined) return [];
    return expected
      .filter((line) => !printed.includes(line.trimEnd()))
      .map((line) => `did not print: ${line}`);
  });
  if (skipped !== undefined) {
    checks.skip(`example ${name} ran (${manager})`, skipped);
  }
}
