import { existsSync, readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const sourceCondition = ['@candor/source'];

// Every workspace folder with a package.json becomes a project, so a new package is tested
// without touching this file.
const workspaceDirs = [
  ...['packages', 'apps', 'internal'].flatMap((parent) =>
    readdirSync(parent, { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() &&
          existsSync(`${parent}/${entry.name}/package.json`),
      )
      .map((entry) => ({ root: `${parent}/${entry.name}`, name: entry.name })),
  ),
  ...(existsSync('bench/package.json')
    ? [{ root: 'bench', name: 'bench' }]
    : []),
];

export default defineConfig({
  resolve: { conditions: sourceCondition },
  ssr: { resolve: { conditions: sourceCondition } },
  test: {
    // A hang guard, not a speed goal: tests that start real child processes (the demo, the CLIs,
    // ripgrep) take seconds on a loaded machine, and a test that truly hangs still fails.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Type tests (`*.test-d.ts`) are type-checked by `pnpm typecheck`, whose one program
    // (tsconfig.check.json) holds them and an `expectTypeOf` that does not hold is a compile error. Vitest's own
    // typecheck mode would run tsc a second time per project and print an "experimental" warning
    // for each.
    projects: [
      ...workspaceDirs.map(({ root, name }) => ({
        extends: true as const,
        test: {
          name: `@candor/${name}`,
          root,
        },
      })),
      {
        extends: true as const,
        test: { name: 'repo', root: '.', include: ['tests/**/*.test.ts'] },
      },
    ],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      exclude: ['**/*.test.ts', '**/*.test-d.ts', '**/index.ts'],
    },
  },
});
