/**
 * @module The framework adapters in the install test: `@candor/ai-sdk`, `@candor/langchain` and
 * `@candor/openai-agents`, installed from the local registry with their frameworks beside them
 * (npm and pnpm), then run as ESM and CommonJS and type-checked under node16 and bundler
 * resolution. The Node 20 set uses the framework versions that run on Node 20.19; `--full` adds a
 * Node 22 project with the newest majors that need Node 22. Kept apart from the main consumers.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { type CheckList } from './check-list.ts';
import { formatCommand, PackageManager } from './consumer-plan.ts';
import { type ProcessGroup } from './process-group.ts';

const HERE = join(import.meta.dirname, 'frameworks');

/** The adapters, and the Candor packages their consumer scripts import besides. */
export const FRAMEWORK_ADAPTERS = [
  '@candor/ai-sdk',
  '@candor/langchain',
  '@candor/openai-agents',
] as const;

const CANDOR_EXTRAS = ['@candor/registry', '@candor/tools'] as const;

/**
 * The frameworks of each project. `node20`: the newest releases that run on Node 20.19
 * (`@openai/agents` 0.15 and later need `openai` 7, which needs Node 22). `floor` (`--full`, on
 * Node 20): the lowest release each adapter's peer range allows, and the lowest zod that every
 * peer range there allows (`ai` 6.0.0 asks for zod ^4.1.8). `node22` (`--full`): the newest
 * majors, `ai` 7 and the newest `@openai/agents`, which need Node 22. `tests/install-frameworks`
 * holds these against the adapters' `peerDependencies`.
 */
export const FRAMEWORK_SETS = {
  node20: [
    'ai@^6',
    '@langchain/core@^1',
    '@langchain/langgraph@^1',
    '@openai/agents@~0.14',
    'zod@^4',
  ],
  floor: [
    'ai@6.0.0',
    // @langchain/langgraph 1.0.0 (the approval interrupt's optional peer) asks for core ^1.0.1.
    '@langchain/core@1.0.1',
    '@langchain/langgraph@1.0.0',
    '@openai/agents@0.14.0',
    'zod@4.1.8',
  ],
  node22: [
    'ai@^7',
    '@langchain/core@^1',
    '@langchain/langgraph@^1',
    '@openai/agents@latest',
    'zod@^4',
  ],
} as const;

/** A leg: one framework set, on the Node major it runs on. */
export type FrameworkLeg = keyof typeof FRAMEWORK_SETS;

/**
 * The legs to run on one Node major: 20 runs the Node 20 set (and the floor set with `--full`),
 * 22 the newest majors; Node 24 would repeat the Node 22 project.
 */
export function frameworkLegs(major: number, full: boolean): FrameworkLeg[] {
  if (major < 22) return full ? ['node20', 'floor'] : ['node20'];
  return major === 22 ? ['node22'] : [];
}

const DEV_DEPENDENCIES = ['typescript@6.0.3', '@types/node@20'] as const;

const FILES = [
  'frameworks-logic.cjs',
  'frameworks-consumer.mjs',
  'frameworks-consumer.cjs',
  'frameworks-consumer.ts',
  'tsconfig.frameworks-node16.json',
  'tsconfig.frameworks-bundler.json',
] as const;

/** What the framework step needs from the install test's run. */
export interface FrameworkRun {
  readonly checks: CheckList;
  readonly processes: ProcessGroup;
  readonly work: string;
  readonly registryUrl: string;
  readonly available: readonly string[];
  /** The node binaries of the legs to run: the host (Node 20) always, Node 22 with `--full`. */
  readonly runtimes: readonly {
    readonly major: number;
    readonly bin: string;
  }[];
  readonly env: (extra?: Readonly<Record<string, string>>) => NodeJS.ProcessEnv;
  /** `--full`: also the floor set on Node 20. */
  readonly full: boolean;
}

/**
 * Whether an installed version is what a set asked for: `6.0.0` exactly, `^7` any 7.x.y, `~0.14`
 * any 0.14.z; `latest` is whatever the registry had (reported, not checked).
 */
export function installedAsAsked(asked: string, installed: string): boolean {
  if (asked === 'latest') return /^\d+\.\d+\.\d+$/.test(installed);
  const [major, minor] = installed.split('.');
  if (asked.startsWith('^')) return major === asked.slice(1);
  if (asked.startsWith('~')) return `${major}.${minor}` === asked.slice(1);
  return installed === asked;
}

/** The problems with what one project installed, and the versions it installed. */
async function installedVersions(
  dir: string,
  leg: FrameworkLeg,
): Promise<{ problems: string[]; versions: string[] }> {
  const problems: string[] = [];
  const versions: string[] = [];
  for (const spec of FRAMEWORK_SETS[leg]) {
    const at = spec.lastIndexOf('@');
    const [name, asked] = [spec.slice(0, at), spec.slice(at + 1)];
    const { version } = JSON.parse(
      await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { version: string };
    versions.push(`${name}@${version}`);
    if (!installedAsAsked(asked, version))
      problems.push(`${name}: asked for ${asked}, installed ${version}`);
  }
  return { problems, versions };
}

/** The install commands of one framework consumer project. */
export function frameworkInstallCommands(
  manager: PackageManager,
  leg: FrameworkLeg,
): string[][] {
  const add = manager === 'npm' ? ['npm', 'install'] : ['pnpm', 'add'];
  return [
    [...add, ...FRAMEWORK_ADAPTERS, ...CANDOR_EXTRAS, ...FRAMEWORK_SETS[leg]],
    [...add, '--save-dev', ...DEV_DEPENDENCIES],
  ];
}

/**
 * The problems in one consumer's JSON line: each framework must tell the model the error with
 * its code, in its own channel.
 */
export function checkFrameworkReport(stdout: string, module: string): string[] {
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<
      string,
      unknown
    >;
  } catch {
    return [`no JSON report in the output:\n${stdout}`];
  }
  const problems: string[] = [];
  const want = (ok: boolean, what: string): void => {
    if (!ok) problems.push(`${what}: ${JSON.stringify(report)}`);
  };
  const aiSdk = report['aiSdk'] as { type?: string; value?: string } | null;
  const lc = report['langchain'] as Record<string, unknown> | null;
  want(report['module'] === module, `module is not ${module}`);
  want(
    aiSdk?.type === 'error-text' &&
      aiSdk.value?.startsWith('[INVALID_PARAM]') === true,
    'AI SDK: not error-text with the code',
  );
  want(
    lc?.['status'] === 'error' &&
      lc['code'] === 'INVALID_PARAM' &&
      lc['toolCallId'] === 'l1' &&
      String(lc['content']).startsWith('[INVALID_PARAM]'),
    'LangChain: not an error ToolMessage with the code',
  );
  want(
    String(report['openaiAgents']).startsWith('[INVALID_PARAM]'),
    'OpenAI Agents: the output does not start with the code',
  );
  const model = report['aiSdkModel'] as {
    sent?: { toolCallId?: string; type?: string; value?: string } | null;
    events?: unknown;
  } | null;
  want(
    model?.sent?.toolCallId === 'f1' &&
      model.sent.type === 'error-text' &&
      model.sent.value?.startsWith('[INVALID_PARAM]') === true,
    'fromLanguageModel: the AI SDK model was not sent error-text with the code',
  );
  want(
    JSON.stringify(model?.events) ===
      JSON.stringify([
        { type: 'text-delta', text: 'b must not be zero' },
        // The text part's end, where the AI SDK's provider metadata would come with it.
        { type: 'text-end' },
        {
          type: 'finish',
          finishReason: 'stop',
          usage: { inputTokens: 12, outputTokens: 3 },
        },
      ]),
    'fromLanguageModel: not the text, finish reason and usage the AI SDK model streamed',
  );
  return problems;
}

async function createProject(
  run: FrameworkRun,
  manager: PackageManager,
  leg: FrameworkLeg,
): Promise<string> {
  const dir = join(run.work, 'consumers', `${manager}-frameworks-${leg}`);
  const caches = join(run.work, 'caches', `${manager}-frameworks`);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `candor-frameworks-${manager}-${leg}`, version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const npmrc =
    manager === PackageManager.npm
      ? [`registry=${run.registryUrl}`, `cache=${caches}`]
      : [
          `registry=${run.registryUrl}`,
          `store-dir=${join(caches, 'store')}`,
          `cache-dir=${join(caches, 'cache')}`,
        ];
  await writeFile(join(dir, '.npmrc'), `${npmrc.join('\n')}\n`);
  const env = run.env({
    npm_config_userconfig: join(run.work, 'consumer.npmrc'),
  });
  for (const [file, ...args] of frameworkInstallCommands(manager, leg)) {
    if (file !== undefined)
      await run.processes.runOk(file, args, { cwd: dir, env });
  }
  for (const file of FILES) await copyFile(join(HERE, file), join(dir, file));
  return dir;
}

async function checkProject(
  run: FrameworkRun,
  dir: string,
  context: { readonly label: string; readonly bin: string },
): Promise<void> {
  const env = run.env({
    PATH: `${dirname(context.bin)}${delimiter}${run.env()['PATH'] ?? ''}`,
  });
  const options = { cwd: dir, env, timeoutMs: 2 * 60_000 };
  for (const [module, script] of [
    ['esm', 'frameworks-consumer.mjs'],
    ['commonjs', 'frameworks-consumer.cjs'],
  ] as const) {
    await run.checks.check(
      `${context.label} ${module} adapters in their frameworks`,
      async () => {
        const result = await run.processes.runOk(
          context.bin,
          [script],
          options,
        );
        return checkFrameworkReport(result.stdout, module);
      },
    );
  }
  const tsc = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const resolution of ['node16', 'bundler'] as const) {
    await run.checks.check(
      `${context.label} adapters: tsc --noEmit, moduleResolution ${resolution}`,
      async () => {
        await run.processes.runOk(
          context.bin,
          [tsc, '--noEmit', '-p', `tsconfig.frameworks-${resolution}.json`],
          options,
        );
        return [];
      },
    );
  }
}

/** Installs and checks the framework consumers: one project per package manager and Node leg. */
export async function checkFrameworkConsumers(
  run: FrameworkRun,
): Promise<void> {
  const missing = [...FRAMEWORK_ADAPTERS, ...CANDOR_EXTRAS].filter(
    (name) => !run.available.includes(name),
  );
  if (missing.length > 0) {
    run.checks.skip(
      'framework adapters',
      `not published: ${missing.join(', ')}`,
    );
    return;
  }
  for (const runtime of run.runtimes) {
    for (const leg of frameworkLegs(runtime.major, run.full))
      for (const manager of Object.values(PackageManager)) {
        const commands = frameworkInstallCommands(manager, leg)
          .map(formatCommand)
          .join(' && ');
        let dir: string | undefined;
        await run.checks.check(
          `${manager} frameworks (${leg}): ${commands}`,
          async () => {
            dir = await createProject(run, manager, leg);
            return [];
          },
        );
        if (dir !== undefined) {
          const found = await installedVersions(dir, leg).catch(
            (error: unknown) => ({ problems: [String(error)], versions: [] }),
          );
          run.checks.expect(
            `[${manager} · frameworks (${leg})] installed the versions the set asked for`,
            found.problems,
            found.versions.join(', '),
          );
          await checkProject(run, dir, {
            label: `[${manager} · frameworks (${leg}) · node ${runtime.major}]`,
            bin: runtime.bin,
          });
        }
      }
  }
}
