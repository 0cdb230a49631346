/**
 * @module The README's first run, in the install test: projects that start from `npm init -y`
 * and apply the README's Install section as read from README.md, then run its usage example as
 * the README says (tsc then node, and tsx), as an ES module and as CommonJS; and a project with
 * zod 3 that must get the error the README promises.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CheckList } from './check-list.ts';
import {
  README_EXAMPLE_OUTPUT,
  TSX_REQUIRE_FAILURE,
  ZOD3_ERROR_PARTS,
} from './consumer-expectations.ts';
import { type ProcessGroup, type RunOptions } from './process-group.ts';
import {
  commandSteps,
  type ReadmeInstall,
  type ReadmeUsage,
} from './readme-install.ts';

const HERE = join(import.meta.dirname, 'consumer');

/** What `npm init -y` and the README need to start a project. */
export interface ReadmeProject {
  readonly processes: ProcessGroup;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly install: ReadmeInstall;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

/**
 * `npm init -y` for real, then the README's `package.json` fields on top of what it wrote and
 * the README's `tsconfig.json`, as a user copies them.
 */
export async function startFromReadme(project: ReadmeProject): Promise<void> {
  const { processes, dir, env, install } = project;
  await processes.runOk('npm', ['init', '-y'], { cwd: dir, env });
  const path = join(dir, 'package.json');
  const initial = await readJson(path);
  await writeFile(
    path,
    `${JSON.stringify({ ...initial, ...install.packageJson }, null, 2)}\n`,
  );
  await writeFile(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify(install.tsconfig, null, 2)}\n`,
  );
}

/** The README's install lines for one package manager, run as typed. */
export async function runReadmeInstall(
  project: ReadmeProject,
  manager: string,
): Promise<void> {
  const lines = project.install.commands.filter(
    (line) => line.split(' ')[0] === manager,
  );
  if (lines.length === 0) {
    throw new Error(`the README's Install section has no ${manager} command`);
  }
  for (const line of lines) {
    for (const [file, ...args] of commandSteps(line)) {
      if (file === undefined) continue;
      await project.processes.runOk(file, args, {
        cwd: project.dir,
        env: project.env,
      });
    }
  }
}

/** The example's file name without extension, from the main file's `./divide.js`. */
function exampleBase(usage: ReadmeUsage): string {
  return usage.exampleImport.replace(/^\.\//, '').replace(/\.js$/, '');
}

/**
 * Writes the README's files into a consumer project: the example and the main file as ES
 * modules (`divide.ts`, `main.ts`), and the same example as CommonJS (`divide.cts`) with a
 * CommonJS main (`main.cts`, from `consumer/readme-main.cts`: no top-level `await` there).
 */
export async function writeReadmeFiles(
  dir: string,
  usage: ReadmeUsage,
): Promise<void> {
  const base = exampleBase(usage);
  await writeFile(join(dir, `${base}.ts`), usage.example);
  await writeFile(join(dir, 'main.ts'), usage.main);
  await writeFile(join(dir, `${base}.cts`), usage.example);
  const template = await readFile(join(HERE, 'readme-main.cts'), 'utf8');
  await writeFile(
    join(dir, 'main.cts'),
    template.replaceAll('./__EXAMPLE__.cjs', `./${base}.cjs`),
  );
}

function expectOutput(stdout: string, label: string): string[] {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return last === README_EXAMPLE_OUTPUT
    ? []
    : [
        `${label} printed ${JSON.stringify(last)}, the README says "${README_EXAMPLE_OUTPUT}"`,
      ];
}

/** Where a runtime other than the host's `node` is under test, `node` means that binary. */
function resolveFile(file: string, nodeBin: string): string {
  return file === 'node' ? nodeBin : file;
}

/**
 * The README's run commands in one consumer project, then the CommonJS paths: `node main.cjs`
 * (compiled by the README's `npx tsc`) must print what the README says, and `npx tsx main.cts`
 * must fail on Node 20 the way the README says it does.
 */
export async function checkReadmeUsage(context: {
  readonly checks: CheckList;
  readonly processes: ProcessGroup;
  readonly usage: ReadmeUsage;
  readonly label: string;
  readonly nodeBin: string;
  readonly nodeMajor: number;
  readonly options: RunOptions;
}): Promise<void> {
  const { checks, processes, usage, label, nodeBin, options } = context;
  for (const line of usage.run) {
    await checks.check(`${label} README usage: ${line}`, async () => {
      let stdout = '';
      for (const [file, ...args] of commandSteps(line)) {
        if (file === undefined) continue;
        const result = await processes.runOk(
          resolveFile(file, nodeBin),
          args,
          options,
        );
        stdout = result.stdout;
      }
      return expectOutput(stdout, line);
    });
  }

  const base = exampleBase(usage);
  await checks.check(
    `${label} README usage as CommonJS: node main.cjs (tsc output of main.cts and ${base}.cts)`,
    async () => {
      const compiled = join(options.cwd, `${base}.cjs`);
      if (!existsSync(compiled)) {
        return [`${base}.cjs is missing: the README's npx tsc did not emit it`];
      }
      const problems = (await readFile(compiled, 'utf8')).includes('require(')
        ? []
        : [`${base}.cjs has no require(): it is not CommonJS`];
      const result = await processes.runOk(nodeBin, ['main.cjs'], options);
      return [...problems, ...expectOutput(result.stdout, 'node main.cjs')];
    },
  );

  if (context.nodeMajor !== 20) {
    checks.skip(
      `${label} README: npx tsx main.cts`,
      'the README states what tsx does on Node 20 only',
    );
    return;
  }
  await checks.check(
    `${label} README: npx tsx main.cts fails as the README says`,
    async () => {
      const result = await processes.run('npx', ['tsx', 'main.cts'], options);
      if (result.exitCode === 0) {
        return [
          `it worked (${JSON.stringify(result.stdout.trim())}): the README's CommonJS-under-tsx note is out of date`,
        ];
      }
      return result.stderr.includes(TSX_REQUIRE_FAILURE)
        ? []
        : [
            `it failed, but not with "${TSX_REQUIRE_FAILURE}":\n${result.stderr.slice(-1500)}`,
          ];
    },
  );
}

/** What the zod 3 project needs from the install test's run. */
export interface Zod3Run {
  readonly checks: CheckList;
  readonly processes: ProcessGroup;
  readonly install: ReadmeInstall;
  /** The project folders; each gets its `.npmrc` from `npmrc`. */
  readonly dirs: { readonly npm: string; readonly pnpm: string };
  readonly npmrc: (manager: 'npm' | 'pnpm') => readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly nodeBin: string;
}

async function zod3Project(
  run: Zod3Run,
  manager: 'npm' | 'pnpm',
): Promise<ReadmeProject> {
  const dir = run.dirs[manager];
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, '.npmrc'), `${run.npmrc(manager).join('\n')}\n`);
  const project = {
    processes: run.processes,
    dir,
    env: run.env,
    install: run.install,
  };
  await startFromReadme(project);
  return project;
}

/**
 * A project that already has zod 3: npm refuses to add Candor beside it (the peer dependency),
 * pnpm adds it with a warning, and then importing Candor throws the README's error, naming the
 * zod it found and the range `@candor/tools` declares.
 */
export async function checkZod3Consumers(run: Zod3Run): Promise<void> {
  const { checks, processes } = run;
  await checks.check(
    'npm refuses @candor/tools beside zod 3 (ERESOLVE: zod is a peer dependency)',
    async () => {
      const project = await zod3Project(run, 'npm');
      const result = await processes.run(
        'npm',
        ['install', '--no-audit', '--no-fund', '@candor/tools', 'zod@3'],
        { cwd: project.dir, env: run.env },
      );
      if (result.exitCode === 0) return ['npm installed it'];
      return `${result.stdout}${result.stderr}`.includes('ERESOLVE')
        ? []
        : [`npm failed without ERESOLVE:\n${result.stderr.slice(-1500)}`];
    },
  );

  await checks.check(
    'pnpm project with zod 3: importing Candor names the zod found and the zod needed',
    async () => {
      const project = await zod3Project(run, 'pnpm');
      await processes.runOk(
        'pnpm',
        ['add', '@candor/registry', '@candor/tools', 'zod@3'],
        {
          cwd: project.dir,
          env: run.env,
        },
      );
      const zod = await readJson(
        join(project.dir, 'node_modules', 'zod', 'package.json'),
      );
      const tools = await readJson(
        join(project.dir, 'node_modules', '@candor', 'tools', 'package.json'),
      );
      const peers = tools['peerDependencies'] as Record<string, unknown> | null;
      const needed = peers?.['zod'];
      const problems: string[] = [];
      if (
        typeof zod['version'] !== 'string' ||
        !zod['version'].startsWith('3.')
      ) {
        problems.push(`the project has zod ${String(zod['version'])}, not 3.x`);
      }
      if (typeof needed !== 'string') {
        return [...problems, '@candor/tools declares no zod peer range'];
      }
      await copyFile(
        join(HERE, 'zod3-consumer.mjs'),
        join(project.dir, 'zod3-consumer.mjs'),
      );
      const result = await processes.runOk(run.nodeBin, ['zod3-consumer.mjs'], {
        cwd: project.dir,
        env: run.env,
      });
      const report = JSON.parse(
        result.stdout.trim().split('\n').at(-1) ?? '{}',
      ) as { threw?: boolean; stage?: string; message?: string };
      if (report.threw !== true) {
        return [...problems, 'Candor accepted zod 3 without a word'];
      }
      const message = report.message ?? '';
      for (const part of [...ZOD3_ERROR_PARTS, `needs zod ${needed}`]) {
        if (!message.includes(part)) {
          problems.push(
            `the error (at ${String(report.stage)}) does not say "${part}": ${message}`,
          );
        }
      }
      return problems;
    },
  );
}
