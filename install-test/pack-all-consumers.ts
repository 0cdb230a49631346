/**
 * @module The install before npm: `pnpm pack:all` in the copy, then its printed npm command,
 * and its pnpm overrides and `pnpm add`, each in an empty project, then an import of every entry
 * point of every package. Third-party packages come from the local registry, so it runs offline
 * once Verdaccio has them.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CheckList } from './check-list.ts';
import { type ProcessGroup } from './process-group.ts';

const IMPORTER = join(
  import.meta.dirname,
  'pack-all',
  'import-every-entry.mjs',
);

/** What `pnpm pack:all` writes to `.packs/install.json`. */
export interface PackSet {
  readonly tarballs: Readonly<Record<string, string>>;
  readonly npmCommand: string;
  readonly pnpmOverrides: Readonly<Record<string, string>>;
  readonly pnpmCommand: string;
}

export interface PackAllOptions {
  readonly checks: CheckList;
  readonly processes: ProcessGroup;
  /** The copy of the workspace, already installed and built. */
  readonly workspace: string;
  readonly work: string;
  readonly registryUrl: string;
  readonly env: (extra?: Readonly<Record<string, string>>) => NodeJS.ProcessEnv;
  readonly nodeBin: string;
  /** The public packages that must each be among the tarballs. */
  readonly packages: readonly string[];
}

function words(command: string): [string, ...string[]] {
  const [file, ...args] = command.split(' ');
  if (file === undefined) throw new Error('an empty command');
  return [file, ...args];
}

/** Checks pack:all and its two install commands; returns what it printed, if it ran. */
export async function checkPackAllConsumers(
  options: PackAllOptions,
): Promise<PackSet | undefined> {
  const { checks, processes, workspace, work } = options;
  // Set inside the check's callback, which TypeScript's narrowing does not follow.
  const found: { set?: PackSet } = {};
  await checks.check('pnpm pack:all in the copy', async () => {
    await processes.runOk('pnpm', ['pack:all'], {
      cwd: workspace,
      env: options.env(),
    });
    const set = JSON.parse(
      await readFile(join(workspace, '.packs', 'install.json'), 'utf8'),
    ) as PackSet;
    found.set = set;
    return options.packages
      .filter((name) => !(name in set.tarballs))
      .map((name) => `${name} has no tarball in .packs/`);
  });
  const packs = found.set;
  if (packs === undefined) return undefined;
  for (const manager of ['npm', 'pnpm'] as const) {
    await checks.check(
      `${manager}: the command pack:all prints, in an empty project, then import every entry point`,
      async () => {
        const dir = join(work, 'consumers', `candor-packs-${manager}`);
        await mkdir(dir, { recursive: true });
        const caches = join(work, 'caches', `packs-${manager}`);
        await writeFile(
          join(dir, '.npmrc'),
          manager === 'npm'
            ? `registry=${options.registryUrl}\ncache=${caches}\n`
            : `registry=${options.registryUrl}\nstore-dir=${join(caches, 'store')}\ncache-dir=${join(caches, 'cache')}\n`,
        );
        const manifest = {
          name: `candor-packs-${manager}`,
          private: true,
          type: 'module',
          ...(manager === 'pnpm'
            ? { pnpm: { overrides: packs.pnpmOverrides } }
            : {}),
        };
        await writeFile(
          join(dir, 'package.json'),
          `${JSON.stringify(manifest, null, 2)}\n`,
        );
        const env = options.env({
          npm_config_userconfig: join(work, 'consumer.npmrc'),
        });
        const [file, ...args] = words(
          manager === 'npm' ? packs.npmCommand : packs.pnpmCommand,
        );
        await processes.runOk(file, args, { cwd: dir, env });
        await copyFile(IMPORTER, join(dir, 'import-every-entry.mjs'));
        const imported = await processes.runOk(
          options.nodeBin,
          ['import-every-entry.mjs'],
          { cwd: dir, env },
        );
        const lines = imported.stdout.split('\n');
        return options.packages
          .filter((name) => !lines.some((line) => line.startsWith(`${name}: `)))
          .map((name) => `${name} was not imported`);
      },
    );
  }
  return packs;
}
