/**
 * @module The `examples/` projects in the install test: each copied to an empty folder, its
 * `@candor/*` versions set to the version just published, installed with npm from the local
 * registry, and run with `npm start`; every line its README shows under "Expected output" must
 * be printed. An example may instead print a `skipped: …` line (the Redis fleet without
 * redis-server), which is recorded as a skip, not a pass.
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
}

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
  const { checks, processes, workspace, work } = options;
  const root = join(workspace, 'examples');
  const entries = await readdir(root, { withFileTypes: true });
  for (const entry of entries.filter((e) => e.isDirectory())) {
    const name = entry.name;
    const dir = join(work, 'examples', name);
    let skipped: string | undefined;
    await checks.check(
      `example ${name}: npm install from the local registry, npm start, its expected lines`,
      async () => {
        await cp(join(root, name), dir, {
          recursive: true,
          filter: (path) => !path.includes('node_modules'),
        });
        const manifest = JSON.parse(
          await readFile(join(dir, 'package.json'), 'utf8'),
        ) as Record<string, unknown>;
        await writeFile(
          join(dir, 'package.json'),
          `${JSON.stringify(withVersion(manifest, options.version), null, 2)}\n`,
        );
        await writeFile(
          join(dir, '.npmrc'),
          `registry=${options.registryUrl}\ncache=${join(work, 'caches', 'examples')}\n`,
        );
        const expected = expectedLines(
          await readFile(join(dir, 'README.md'), 'utf8'),
        );
        const env = options.env({
          npm_config_userconfig: join(work, 'consumer.npmrc'),
        });
        await processes.runOk('npm', ['install', '--no-audit', '--no-fund'], {
          cwd: dir,
          env,
        });
        const started = await processes.runOk('npm', ['start', '--silent'], {
          cwd: dir,
          env,
          timeoutMs: 2 * 60_000,
        });
        const printed = started.stdout
          .split('\n')
          .map((line) => line.trimEnd());
        skipped = printed.find((line) => line.startsWith('skipped: '));
        if (skipped !== undefined) return [];
        return expected
          .filter((line) => !printed.includes(line.trimEnd()))
          .map((line) => `did not print: ${line}`);
      },
    );
    if (skipped !== undefined) checks.skip(`example ${name} ran`, skipped);
  }
}
