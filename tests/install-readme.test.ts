import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  README_EXAMPLE_OUTPUT,
  TSX_REQUIRE_FAILURE,
} from '../install-test/consumer-expectations.ts';
import {
  formatCommand,
  installCommands,
  PackageManager,
  TRACE_HELP_COMMAND,
} from '../install-test/consumer-plan.ts';
import {
  commandSteps,
  fencedBlocks,
  readmeInstall,
  readmeUsage,
  shellCommands,
} from '../install-test/readme-install.ts';
import { listPublicPackages } from '../install-test/workspace-packages.ts';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('installCommands', () => {
  it('installs the consumer packages that exist, with zod, then the TypeScript tooling', () => {
    expect(
      installCommands(PackageManager.npm, [
        '@candor/tools',
        '@candor/errors',
        '@candor/registry',
        '@candor/testing',
      ]).map(formatCommand),
    ).toEqual([
      'npm install @candor/registry @candor/tools zod',
      'npm install --save-dev @candor/testing typescript@6.0.3 @types/node@20 tsx@4',
    ]);
  });

  it('uses pnpm add for pnpm', () => {
    expect(installCommands(PackageManager.pnpm, ['@candor/tools'])).toEqual([
      ['pnpm', 'add', '@candor/tools', 'zod'],
      [
        'pnpm',
        'add',
        '--save-dev',
        'typescript@6.0.3',
        '@types/node@20',
        'tsx@4',
      ],
    ]);
  });
});

describe('the README Install section', () => {
  it('shows exactly the commands for the published packages', async () => {
    const packages = (await listPublicPackages(root)).filter(
      ({ ready }) => ready,
    );
    const available = packages.map(({ name }) => name);
    const traceCli = packages.some(({ bins }) => bins.includes('candor-trace'));
    const expected = [
      ...Object.values(PackageManager).flatMap((manager) =>
        installCommands(manager, available).map(formatCommand),
      ),
      ...(traceCli ? [formatCommand(TRACE_HELP_COMMAND)] : []),
    ];
    expect(readmeInstall(readme).commands).toEqual(expected);
  });

  it('makes an ES module project for Node 20.19+ with a tsconfig for node20 resolution', () => {
    const { packageJson, tsconfig } = readmeInstall(readme);
    expect(packageJson['type']).toBe('module');
    expect(tsconfig['compilerOptions']).toMatchObject({
      module: 'nodenext',
      moduleResolution: 'nodenext',
    });
  });

  it('quotes the tsx failure the install test checks for', () => {
    expect(readme).toContain(TSX_REQUIRE_FAILURE);
  });

  it('reads only sh blocks, and fails on a section without its two json blocks', () => {
    expect(
      shellCommands(
        ['```sh', 'npm install a', '```', '```ts', "import 'a';", '```'].join(
          '\n',
        ),
      ),
    ).toEqual(['npm install a']);
    expect(() =>
      readmeInstall('# x\n\n## Install\n\n```json\n{}\n```\n\n## Next\n'),
    ).toThrow('two json blocks');
    expect(() =>
      readmeInstall(
        '\n## Install\n\n```json\n{"type":"module"}\n```\n```json\n{ nope }\n```\n',
      ),
    ).toThrow('is not JSON');
  });
});

describe('the README usage example', () => {
  it('has the example, a main file that imports it, and the run commands', () => {
    const usage = readmeUsage(readme);
    expect(usage.example).toContain('export const registry');
    expect(usage.exampleImport).toBe('./divide.js');
    expect(usage.main).toContain("from './divide.js'");
    expect(usage.run).toEqual(['npx tsc && node main.js', 'npx tsx main.ts']);
    expect(readme).toContain(`print \`${README_EXAMPLE_OUTPUT}\``);
  });

  it('is the same example apps/demo tests', () => {
    expect(readmeUsage(readme).example).toBe(
      readFileSync(join(root, 'apps/demo/src/readme-example.ts'), 'utf8'),
    );
  });
});

describe('fencedBlocks and commandSteps', () => {
  it('keeps each block with its language, and refuses an unclosed fence', () => {
    expect(fencedBlocks('```json\n{}\n```\ntext\n```\nplain\n```\n')).toEqual([
      { lang: 'json', code: '{}\n' },
      { lang: '', code: 'plain\n' },
    ]);
    expect(() => fencedBlocks('```sh\nnpm test\n')).toThrow('never closed');
  });

  it('splits && steps into argv arrays and refuses what a shell would reinterpret', () => {
    expect(commandSteps('npx tsc && node main.js')).toEqual([
      ['npx', 'tsc'],
      ['node', 'main.js'],
    ]);
    expect(() => commandSteps('node main.js | tee out')).toThrow(
      'not a plain command line',
    );
    expect(() => commandSteps("node -e 'x'")).toThrow(
      'not a plain command line',
    );
    expect(() => commandSteps('npx tsc && ')).toThrow('an empty step');
  });
});
