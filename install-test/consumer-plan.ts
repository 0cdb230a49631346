/** The two package managers a consumer project is made with. */
export const PackageManager = { npm: 'npm', pnpm: 'pnpm' } as const;

/** `npm` or `pnpm`. */
export type PackageManager =
  (typeof PackageManager)[keyof typeof PackageManager];

/**
 * The `@candor/*` packages a user installs, in the order the commands name them. `tools` is
 * here because the consumer scripts call `defineTool` themselves.
 */
export const CONSUMER_PACKAGES = [
  '@candor/builtins',
  '@candor/core',
  '@candor/mcp',
  '@candor/registry',
  '@candor/tools',
  '@candor/traces',
] as const;

/** Used only by a consumer's tests, so it is a dev dependency. */
export const CONSUMER_DEV_PACKAGES = ['@candor/testing'] as const;

/** Imported by the consumer scripts themselves, so a strict pnpm project must name it. */
const RUNTIME_EXTRAS = ['zod'] as const;

/**
 * What a TypeScript user adds: the compiler, pinned so the type check does not drift with new
 * releases, Node's types, and tsx to run `.ts` files without a build step.
 */
const DEV_DEPENDENCIES = [
  'typescript@6.0.3',
  '@types/node@20',
  'tsx@4',
] as const;

/**
 * The commands that install Candor into a fresh project, as argv arrays: the runtime packages
 * that exist, then `@candor/testing` with the TypeScript tooling as dev dependencies. The README's Install section shows these verbatim.
 */
export function installCommands(
  manager: PackageManager,
  available: readonly string[],
): string[][] {
  const packages = CONSUMER_PACKAGES.filter((name) => available.includes(name));
  const devPackages = CONSUMER_DEV_PACKAGES.filter((name) =>
    available.includes(name),
  );
  const add = manager === 'npm' ? ['npm', 'install'] : ['pnpm', 'add'];
  return [
    [...add, ...packages, ...RUNTIME_EXTRAS],
    [...add, '--save-dev', ...devPackages, ...DEV_DEPENDENCIES],
  ];
}

/** The traces CLI as a user first runs it, once `@candor/traces` is installed. */
export const TRACE_HELP_COMMAND = ['npx', 'candor-trace', '--help'] as const;

/** An argv array as a user types it (no argument here needs quoting). */
export function formatCommand(argv: readonly string[]): string {
  return argv.join(' ');
}
