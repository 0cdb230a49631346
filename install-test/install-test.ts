/**
 * @module `pnpm test:install`: publishes every public `@candor/*` package to a local Verdaccio
 * and installs them into fresh npm and pnpm projects, as a user would, then runs ESM, CommonJS,
 * TypeScript and CLI consumers in them. `--full` repeats the consumers on Node 22 and 24.
 * Everything lives in one temporary folder, removed at the end (`--keep` leaves it).
 */
import { existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rm,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CheckList, RunAborted } from './check-list.ts';
import {
  checkConsumerReport,
  checkMcpReport,
  checkTraceRecords,
  ConsumerPath,
} from './consumer-expectations.ts';
import {
  CONSUMER_DEV_PACKAGES,
  CONSUMER_PACKAGES,
  formatCommand,
  PackageManager,
  TRACE_HELP_COMMAND,
} from './consumer-plan.ts';
import { copyWorkspace } from './copy-workspace.ts';
import { checkExampleProjects } from './example-projects.ts';
import { checkPackAllConsumers } from './pack-all-consumers.ts';
import { checkFrameworkConsumers } from './framework-consumers.ts';
import { checkPublishedPackage, importSpecifiers } from './manifest-check.ts';
import { CommandFailed, ProcessGroup } from './process-group.ts';
import {
  checkReadmeUsage,
  checkZod3Consumers,
  runReadmeInstall,
  startFromReadme,
  writeReadmeFiles,
} from './readme-consumers.ts';
import {
  type ReadmeInstall,
  readmeInstall,
  type ReadmeUsage,
  readmeUsage,
} from './readme-install.ts';
import { type RunningRegistry, startRegistry } from './start-registry.ts';
import { fetchPublished } from './tarball.ts';
import { verdaccioConfig } from './verdaccio-config.ts';
import {
  listPublicPackages,
  type WorkspacePackage,
} from './workspace-packages.ts';

const ROOT = dirname(import.meta.dirname);
const HERE = import.meta.dirname;
const UPLINK = 'https://registry.npmjs.org/';
const EXTRA_NODE_MAJORS = [22, 24] as const;
const SCRIPT_TIMEOUT_MS = 2 * 60_000;

interface Options {
  readonly full: boolean;
  readonly keep: boolean;
}

interface Runtime {
  readonly major: number;
  readonly version: string;
  /** The `node` binary. */
  readonly bin: string;
}

interface Consumer {
  readonly manager: PackageManager;
  readonly dir: string;
}

/** What the consumer steps may expect, read from the packages as built and published. */
interface Expectations {
  readonly path: ConsumerPath;
  readonly traceCli: boolean;
}

/** The README's first run, read from the README.md of the copy under test. */
interface Readme {
  readonly install: ReadmeInstall;
  readonly usage: ReadmeUsage;
}

/** Shared by every step; `registry` is set once it runs, so cleanup can stop it. */
interface Run {
  readonly options: Options;
  readonly work: string;
  readonly checks: CheckList;
  readonly processes: ProcessGroup;
  registry?: RunningRegistry;
}

function write(line: string): void {
  process.stdout.write(`${line}\n`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The environment of every child: this process's own, less what `pnpm run` injected (npm_*
 * settings and the workspace's `node_modules/.bin` on PATH), so no child sees the workspace.
 */
function childEnv(
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(?:npm|pnpm)_/i.test(key) || key === 'PNPM_HOME') env[key] = value;
  }
  env['PATH'] = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((entry) => !entry.includes(`node_modules${sep}.bin`))
    .join(delimiter);
  return { ...env, ...extra };
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

async function ensureVerdaccio(run: Run): Promise<void> {
  const dir = join(HERE, 'registry');
  const wanted = (await readJson(join(dir, 'package.json')))[
    'dependencies'
  ] as Record<string, string>;
  const installed = join(dir, 'node_modules', 'verdaccio', 'package.json');
  if (
    existsSync(installed) &&
    (await readJson(installed))['version'] === wanted['verdaccio']
  ) {
    return;
  }
  await run.processes.runOk('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: childEnv(),
  });
}

async function versionWorkspace(
  run: Run,
  workspace: string,
  packages: readonly WorkspacePackage[],
): Promise<{ before: unknown; version: string }> {
  const [first] = packages;
  if (first === undefined) throw new Error('no package to version');
  const before = (await readJson(join(first.dir, 'package.json')))['version'];
  const changeset = [
    '---',
    ...packages.map(({ name }) => `'${name}': minor`),
    '---',
    '',
    'A release made by the install test, never published beyond its local registry.',
    '',
  ].join('\n');
  await writeFile(
    join(workspace, '.changeset', 'install-test-release.md'),
    changeset,
  );
  await run.processes.runOk('pnpm', ['exec', 'changeset', 'version'], {
    cwd: workspace,
    env: childEnv(),
  });
  const versions = new Set<unknown>();
  for (const { dir } of packages) {
    versions.add((await readJson(join(dir, 'package.json')))['version']);
  }
  const [version] = versions;
  if (versions.size !== 1 || typeof version !== 'string') {
    throw new Error(
      `the fixed group should give one version, got ${[...versions].map(String).join(', ')}`,
    );
  }
  if (version === before) throw new Error(`the version stayed ${version}`);
  return { before, version };
}

async function writeNpmrc(
  path: string,
  lines: readonly string[],
): Promise<void> {
  await writeFile(path, `${lines.join('\n')}\n`);
}

async function publishAll(
  run: Run,
  packages: readonly WorkspacePackage[],
  registry: RunningRegistry,
): Promise<void> {
  const userconfig = join(run.work, 'publish.npmrc');
  // Any token does: @candor/* is open to anonymous publishing, but npm will not publish without.
  await writeNpmrc(userconfig, [
    `//${new URL(registry.url).host}/:_authToken=install-test`,
  ]);
  let failed = 0;
  for (const { name, dir } of packages) {
    const published = await run.checks.check(`publish ${name}`, async () => {
      await run.processes.runOk(
        'pnpm',
        ['publish', '--no-git-checks', '--registry', registry.url],
        { cwd: dir, env: childEnv({ npm_config_userconfig: userconfig }) },
      );
      return [];
    });
    if (!published) failed += 1;
  }
  if (failed > 0) throw new RunAborted(`${failed} packages failed to publish`);
}

async function verifyPublished(
  run: Run,
  packages: readonly WorkspacePackage[],
  version: string,
): Promise<Map<string, Record<string, unknown>>> {
  const registry = run.registry;
  if (registry === undefined) throw new Error('the registry is not running');
  const tarballs = join(run.work, 'tarballs');
  await mkdir(tarballs, { recursive: true });
  const manifests = new Map<string, Record<string, unknown>>();
  for (const { name } of packages) {
    await run.checks.check(
      `${name}@${version} as served: manifest and tarball`,
      async () => {
        const fetched = await fetchPublished(
          { registry: registry.url, name, version },
          join(tarballs, `${name.replace('/', '-')}.tgz`),
          run.processes,
        );
        manifests.set(name, fetched.tarballManifest);
        const label = (where: string) => (problem: string) =>
          `${where}: ${problem}`;
        return [
          ...fetched.problems,
          ...checkPublishedPackage({
            manifest: fetched.registryManifest,
            files: fetched.files,
          }).map(label('registry manifest')),
          ...checkPublishedPackage({
            manifest: fetched.tarballManifest,
            files: fetched.files,
          }).map(label('tarball package.json')),
        ];
      },
    );
  }
  return manifests;
}

async function readExpectations(
  workspace: string,
  manifests: ReadonlyMap<string, Record<string, unknown>>,
): Promise<Expectations> {
  let path: ConsumerPath = ConsumerPath.tools;
  const registryEntry = join(
    workspace,
    'packages',
    'registry',
    'dist',
    'index.js',
  );
  if (manifests.has('@candor/registry') && existsSync(registryEntry)) {
    // The built package decides, not the consumer scripts: they must agree with it.
    const registryModule = (await import(
      pathToFileURL(registryEntry).href
    )) as Record<string, unknown>;
    if (typeof registryModule['ToolRegistry'] === 'function')
      path = ConsumerPath.registry;
  }
  const bin = manifests.get('@candor/traces')?.['bin'];
  const traceCli =
    typeof bin === 'object' && bin !== null && 'candor-trace' in bin;
  return { path, traceCli };
}

/** The `.npmrc` of a consumer project: the local registry, and a clean cache per manager. */
function consumerNpmrc(run: Run, manager: PackageManager): string[] {
  const registry = run.registry;
  if (registry === undefined) throw new Error('the registry is not running');
  const caches = join(run.work, 'caches', manager);
  return manager === PackageManager.npm
    ? [`registry=${registry.url}`, `cache=${caches}`]
    : [
        `registry=${registry.url}`,
        `store-dir=${join(caches, 'store')}`,
        `cache-dir=${join(caches, 'cache')}`,
      ];
}

/**
 * A consumer project made as the README says: `npm init -y`, the Install section's
 * `package.json` fields and `tsconfig.json`, then its install lines for this package manager.
 */
async function createConsumer(
  run: Run,
  manager: PackageManager,
  install: ReadmeInstall,
): Promise<Consumer> {
  // npm init -y names the package after its folder; a folder named npm or pnpm would not do.
  const dir = join(run.work, 'consumers', `candor-consumer-${manager}`);
  await mkdir(dir, { recursive: true });
  // A clean cache per project, and the local registry, so nothing comes from a warm machine.
  await writeNpmrc(join(dir, '.npmrc'), consumerNpmrc(run, manager));
  const project = {
    processes: run.processes,
    dir,
    env: childEnv({
      npm_config_userconfig: join(run.work, 'consumer.npmrc'),
    }),
    install,
  };
  await startFromReadme(project);
  await runReadmeInstall(project, manager);
  return { manager, dir };
}

/** Each installed package must be the published version, in the project, not a workspace link. */
async function checkInstalled(
  consumer: Consumer,
  installed: readonly string[],
  version: string,
): Promise<string[]> {
  const problems: string[] = [];
  for (const name of installed) {
    const location = await realpath(join(consumer.dir, 'node_modules', name));
    if (!location.startsWith(`${consumer.dir}${sep}`)) {
      problems.push(`${name} resolves outside the project, to ${location}`);
    }
    const manifest = await readJson(join(location, 'package.json'));
    if (manifest['version'] !== version) {
      problems.push(
        `${name} is ${String(manifest['version'])}, expected ${version}`,
      );
    }
  }
  return problems;
}

async function copyConsumerFiles(
  consumer: Consumer,
  installed: readonly string[],
  expectations: Expectations,
): Promise<void> {
  const templates = join(HERE, 'consumer');
  const files = [
    'esm-consumer.mjs',
    'cjs-consumer.cjs',
    'tools-consumer.ts',
    'tsconfig.node16.json',
    'tsconfig.bundler.json',
    'claude-code-trace.jsonl',
  ];
  if (expectations.path === ConsumerPath.registry)
    files.push('registry-consumer.ts');
  if (installed.includes('@candor/mcp')) files.push('mcp-consumer.mjs');
  for (const file of files)
    await copyFile(join(templates, file), join(consumer.dir, file));
  // Every entry point of every installed package (`@candor/core/testing` too) must resolve
  // with types under both resolution modes.
  const specifiers: string[] = [];
  for (const name of installed) {
    const manifest = await readJson(
      join(consumer.dir, 'node_modules', name, 'package.json'),
    );
    specifiers.push(...importSpecifiers(manifest));
  }
  const imports = specifiers.map(
    (specifier, index) => `import * as entry${index} from '${specifier}';`,
  );
  await writeFile(
    join(consumer.dir, 'all-packages.ts'),
    [
      '// Written by the install test: each entry point of each installed @candor package.',
      ...imports,
      '',
      `export const modules = [${specifiers.map((_, index) => `entry${index}`).join(', ')}];`,
      '',
    ].join('\n'),
  );
}

async function installRuntime(run: Run, major: number): Promise<Runtime> {
  const registry = run.registry;
  if (registry === undefined) throw new Error('the registry is not running');
  const prefix = join(run.work, 'runtimes', `node${major}`);
  await mkdir(prefix, { recursive: true });
  await run.processes.runOk(
    'npm',
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', `node@${major}`],
    {
      cwd: prefix,
      env: childEnv({
        npm_config_userconfig: join(run.work, 'consumer.npmrc'),
        npm_config_registry: registry.url,
        npm_config_cache: join(run.work, 'caches', `node${major}`),
      }),
    },
  );
  const bin = join(prefix, 'node_modules', 'node', 'bin', 'node');
  const result = await run.processes.runOk(bin, ['--version'], {
    cwd: prefix,
    env: childEnv(),
  });
  const version = result.stdout.trim();
  if (!version.startsWith(`v${major}.`)) {
    throw new Error(`node@${major} from the registry reports ${version}`);
  }
  return { major, version, bin };
}

async function checkConsumer(
  run: Run,
  consumer: Consumer,
  context: {
    readonly runtime: Runtime;
    readonly expectations: Expectations;
    readonly readme: Readme;
    readonly installed: readonly string[];
  },
): Promise<void> {
  const { runtime, expectations } = context;
  const label = `[${consumer.manager} · node ${runtime.version}]`;
  // The runtime under test comes first on PATH, so bins (#!/usr/bin/env node) run on it too.
  const env = childEnv({
    PATH: `${dirname(runtime.bin)}${delimiter}${childEnv()['PATH'] ?? ''}`,
    npm_config_userconfig: join(run.work, 'consumer.npmrc'),
  });
  const options = { cwd: consumer.dir, env, timeoutMs: SCRIPT_TIMEOUT_MS };
  const expected = { nodeMajor: runtime.major, path: expectations.path };

  // The README's own first run comes first, in the project as the README leaves it: the README's
  // files only, so its `npx tsc` (a tsconfig without `include`) compiles just those, as a new
  // user's would. The test's own consumer files come after.
  await checkReadmeUsage({
    checks: run.checks,
    processes: run.processes,
    usage: context.readme.usage,
    label,
    nodeBin: runtime.bin,
    nodeMajor: runtime.major,
    options,
  });
  await copyConsumerFiles(consumer, context.installed, expectations);

  for (const [module, script] of [
    ['esm', 'esm-consumer.mjs'],
    ['commonjs', 'cjs-consumer.cjs'],
  ] as const) {
    await run.checks.check(
      `${label} ${module} script (${expectations.path} path)`,
      async () => {
        const result = await run.processes.runOk(
          runtime.bin,
          [script],
          options,
        );
        return checkConsumerReport(result.stdout, { ...expected, module });
      },
    );
  }

  if (existsSync(join(consumer.dir, 'mcp-consumer.mjs'))) {
    await run.checks.check(
      `${label} @candor/mcp: candor-mcp over stdio, imported into a registry`,
      async () => {
        const result = await run.processes.runOk(
          runtime.bin,
          ['mcp-consumer.mjs'],
          options,
        );
        return checkMcpReport(result.stdout);
      },
    );
  }

  const tsc = join(consumer.dir, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const resolution of ['node16', 'bundler'] as const) {
    await run.checks.check(
      `${label} tsc --noEmit, moduleResolution ${resolution}`,
      async () => {
        await run.processes.runOk(
          runtime.bin,
          [tsc, '--noEmit', '-p', `tsconfig.${resolution}.json`],
          options,
        );
        return [];
      },
    );
  }

  if (!expectations.traceCli) {
    run.checks.skip(
      `${label} candor-trace through npx`,
      '@candor/traces has no candor-trace bin',
    );
    return;
  }
  const [npx, ...helpArgs] = TRACE_HELP_COMMAND;
  await run.checks.check(
    `${label} ${formatCommand(TRACE_HELP_COMMAND)}`,
    async () => {
      const result = await run.processes.runOk(npx, helpArgs, options);
      return result.stdout.includes('candor-trace')
        ? []
        : [`the help does not name candor-trace:\n${result.stdout}`];
    },
  );
  await run.checks.check(
    `${label} npx candor-trace on a Claude Code trace`,
    async () => {
      const result = await run.processes.runOk(
        npx,
        [
          'candor-trace',
          '--harness',
          'claude-code',
          '--json',
          'claude-code-trace.jsonl',
        ],
        options,
      );
      return checkTraceRecords(result.stdout);
    },
  );
}

async function runSteps(run: Run): Promise<void> {
  const { checks, processes, work } = run;
  await checks.require(
    'install Verdaccio for the test (install-test/registry)',
    () => ensureVerdaccio(run),
  );
  const workspace = join(work, 'workspace');
  await checks.require(
    'copy the workspace (git ls-files: tracked and untracked, not ignored)',
    () => copyWorkspace(ROOT, workspace, processes),
    (count) => `${count} files`,
  );
  const found = await checks.require('find the public packages', () =>
    listPublicPackages(workspace),
  );
  const packages = found.filter(({ name, ready }) => {
    if (!ready) checks.skip(`publish ${name}`, 'it has no src/index.ts yet');
    return ready;
  });
  checks.expect(
    'packages to publish',
    packages.length === 0 ? ['none has a src/index.ts'] : [],
    packages.map(({ name }) => name).join(', '),
  );
  if (packages.length === 0) throw new RunAborted('nothing to publish');
  const copyInstall = await checks.require(
    'pnpm install in the copy',
    async () =>
      await processes.runOk(
        'pnpm',
        ['install', '--no-frozen-lockfile', '--prefer-offline'],
        {
          cwd: workspace,
          env: childEnv(),
        },
      ),
  );
  // A fresh clone's first command must not greet a contributor with a warning (it once said
  // "Failed to create bin" for candor-trace, whose entry was not built yet).
  await checks.check('pnpm install in the copy warns of nothing', () =>
    Promise.resolve(
      `${copyInstall.stdout}\n${copyInstall.stderr}`
        .split('\n')
        .filter((line) => /\bWARN\b/.test(line)),
    ),
  );
  const { version } = await checks.require(
    'changeset version with a generated changeset',
    () => versionWorkspace(run, workspace, packages),
    (change) => `${String(change.before)} → ${change.version}`,
  );
  await checks.require('build every package in the copy', async () => {
    await processes.runOk(
      'pnpm',
      ['-r', '--filter', './packages/*', 'run', 'build'],
      {
        cwd: workspace,
        env: childEnv(),
      },
    );
  });

  const storage = join(work, 'registry-storage');
  await mkdir(storage, { recursive: true });
  const configPath = join(work, 'verdaccio.yaml');
  await writeFile(
    configPath,
    JSON.stringify(
      verdaccioConfig({
        storage,
        logFile: join(work, 'verdaccio.log'),
        uplink: UPLINK,
      }),
      null,
      2,
    ),
  );
  const registry = await checks.require(
    'start Verdaccio on 127.0.0.1',
    () => startRegistry(configPath),
    (started) => started.url,
  );
  run.registry = registry;
  // Every consumer-side npm and pnpm run reads this instead of the machine's ~/.npmrc.
  await writeNpmrc(join(work, 'consumer.npmrc'), [`registry=${registry.url}`]);

  await publishAll(run, packages, registry);
  const manifests = await verifyPublished(run, packages, version);
  const expectations = await checks.require(
    'read what the consumers can expect from the built packages',
    () => readExpectations(workspace, manifests),
    ({ path, traceCli }) =>
      `${path} path${traceCli ? ', candor-trace CLI' : ', no CLI'}`,
  );

  const readme = await checks.require(
    "read the README's Install and Usage sections",
    async () => {
      const text = await readFile(join(workspace, 'README.md'), 'utf8');
      return { install: readmeInstall(text), usage: readmeUsage(text) };
    },
    ({ install, usage }) =>
      `${install.commands.length} install commands, ${usage.run.length} run commands`,
  );

  const available = packages.map(({ name }) => name);
  const installed = [...CONSUMER_PACKAGES, ...CONSUMER_DEV_PACKAGES].filter(
    (name) => available.includes(name),
  );
  if (!installed.includes('@candor/tools')) {
    checks.expect('consumers', [
      '@candor/tools is not published: the consumer scripts need it',
    ]);
    return;
  }
  const majors = run.options.full ? EXTRA_NODE_MAJORS : [];
  const [consumers, extraRuntimes] = await Promise.all([
    Promise.all(
      Object.values(PackageManager).map(async (manager) => {
        const commands = readme.install.commands
          .filter((line) => line.split(' ')[0] === manager)
          .join(' && ');
        let consumer: Consumer | undefined;
        await checks.check(
          `${manager} consumer: npm init -y, the README's package.json and tsconfig.json, ${commands}`,
          async () => {
            consumer = await createConsumer(run, manager, readme.install);
            await writeReadmeFiles(consumer.dir, readme.usage);
            return checkInstalled(consumer, installed, version);
          },
        );
        return consumer;
      }),
    ),
    Promise.all(
      majors.map(async (major) => {
        let runtime: Runtime | undefined;
        await checks.check(`node@${major} from the registry`, async () => {
          runtime = await installRuntime(run, major);
          return [];
        });
        return runtime;
      }),
    ),
  ]);
  const host: Runtime = {
    major: Number(process.versions.node.split('.')[0]),
    version: process.version,
    bin: process.execPath,
  };
  const runtimes = [
    host,
    ...extraRuntimes.filter((runtime) => runtime !== undefined),
  ];
  for (const runtime of runtimes) {
    for (const consumer of consumers) {
      if (consumer !== undefined) {
        await checkConsumer(run, consumer, {
          runtime,
          expectations,
          readme,
          installed,
        });
      }
    }
  }

  // A project that already has zod 3, on this Node only: the error does not depend on the runtime.
  await checkZod3Consumers({
    checks,
    processes,
    install: readme.install,
    dirs: {
      npm: join(work, 'consumers', 'candor-zod3-npm'),
      pnpm: join(work, 'consumers', 'candor-zod3-pnpm'),
    },
    npmrc: (manager) => consumerNpmrc(run, manager),
    env: childEnv({ npm_config_userconfig: join(work, 'consumer.npmrc') }),
    nodeBin: host.bin,
  });

  // The install before npm: pack:all's tarballs, installed together as its output says.
  const packs = await checkPackAllConsumers({
    checks,
    processes,
    workspace,
    work,
    registryUrl: registry.url,
    env: childEnv,
    nodeBin: host.bin,
    packages: available,
  });

  // Every examples/ project, installed from the local registry with npm, then from pack:all's
  // tarballs with pnpm, and run.
  await checkExampleProjects({
    checks,
    processes,
    workspace,
    work,
    registryUrl: registry.url,
    version,
    env: childEnv,
    pnpmOverrides: packs?.pnpmOverrides,
  });

  // The framework adapters, in their own projects with their frameworks beside them.
  await checkFrameworkConsumers({
    checks,
    processes,
    work,
    registryUrl: registry.url,
    available,
    runtimes,
    env: childEnv,
    full: run.options.full,
  });
}

async function main(options: Options): Promise<number> {
  const started = performance.now();
  // Once a signal arrives, the steps still unwinding must not report what the cleanup broke.
  let stopping = false;
  const run: Run = {
    options,
    work: await mkdtemp(join(tmpdir(), 'candor-install-')),
    checks: new CheckList((line) => {
      if (!stopping) write(line);
    }),
    processes: new ProcessGroup(),
  };
  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      run.processes.stop();
      await run.registry?.stop();
      if (!options.keep) await rm(run.work, { recursive: true, force: true });
    })());
  const onSignal = (signal: NodeJS.Signals): void => {
    stopping = true;
    write(
      `install-test: ${signal}, stopping the registry and removing ${run.work}`,
    );
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  // Nothing can be awaited in `exit`: kill synchronously whatever is still running.
  const onExit = (): void => {
    run.processes.killAll();
    run.registry?.killNow();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', onExit);

  write(
    `install-test: ${options.full ? 'full (Node 20, 22, 24)' : 'light (this Node only)'}, in ${run.work}`,
  );
  try {
    await runSteps(run);
  } catch (error: unknown) {
    if (!(error instanceof RunAborted)) {
      run.checks.expect('install test', [
        error instanceof CommandFailed ? error.message : describe(error),
      ]);
    }
  } finally {
    const log = join(run.work, 'verdaccio.log');
    if (run.checks.failures > 0 && existsSync(log)) {
      const text = (await readFile(log, 'utf8')).trim();
      if (text !== '')
        write(`Verdaccio's log:\n${text.split('\n').slice(-20).join('\n')}`);
    }
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  write(
    `install-test: took ${seconds}s${options.keep ? `; files kept in ${run.work}` : ''}`,
  );
  write(run.checks.summary());
  return run.checks.failures === 0 ? 0 : 1;
}

const usage = `Usage: tsx install-test/install-test.ts [--full] [--keep]

Publishes every public @candor/* package to a local Verdaccio and installs them as a user would.
  --full   also run the consumers on Node 22 and 24 (from the npm package "node")
  --keep   leave the temporary folder for inspection
`;

let options: Options;
try {
  const { values } = parseArgs({
    options: {
      full: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  options = { full: values.full, keep: values.keep };
} catch (error: unknown) {
  process.stderr.write(`${describe(error)}\n\n${usage}`);
  process.exit(2);
}
process.exitCode = await main(options);
