import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatCommand,
  installCommands,
  PackageManager,
  TRACE_HELP_COMMAND,
} from '../install-test/consumer-plan.ts';
import { listPublicPackages } from '../install-test/workspace-packages.ts';

const root = join(import.meta.dirname, '..');

function installSection(readme: string): string {
  const start = readme.indexOf('\n## Install\n');
  if (start === -1) throw new Error('README.md has no "## Install" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** The lines of every ```sh block, which is what a reader copies into a terminal. */
function shellCommands(markdown: string): string[] {
  const commands: string[] = [];
  let inShell = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inShell = !inShell && line === '```sh';
    else if (inShell && line.trim() !== '') commands.push(line.trim());
  }
  return commands;
}

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
      'npm install --save-dev @candor/testing typescript@6.0.3 @types/node@20',
    ]);
  });

  it('uses pnpm add for pnpm', () => {
    expect(installCommands(PackageManager.pnpm, ['@candor/tools'])).toEqual([
      ['pnpm', 'add', '@candor/tools', 'zod'],
      ['pnpm', 'add', '--save-dev', 'typescript@6.0.3', '@types/node@20'],
    ]);
  });
});

describe('the README Install section', () => {
  it('shows exactly the commands pnpm test:install runs', async () => {
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
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(shellCommands(installSection(readme))).toEqual(expected);
  });

  it('reads only sh blocks of the section', () => {
    expect(
      shellCommands(
        ['```sh', 'npm install a', '```', '```ts', "import 'a';", '```'].join(
          '\n',
        ),
      ),
    ).toEqual(['npm install a']);
  });
});
