/**
 * @module What the root README tells a new user to do, read from README.md itself: the Install
 * section's `package.json` fields, `tsconfig.json` and install lines, and the Usage section's
 * example, the file that runs it and the commands that run that file. The install test builds its
 * consumer projects from exactly this, so a README change that would break a user's first run
 * breaks the test.
 */

/** One fenced block: its info string (`ts`, `json`, `sh`) and its text. */
export interface FencedBlock {
  readonly lang: string;
  readonly code: string;
}

/** The README's Install section, as a user applies it after `npm init -y`. */
export interface ReadmeInstall {
  /** The fields to add to the `package.json` that `npm init -y` wrote. */
  readonly packageJson: Readonly<Record<string, unknown>>;
  /** The whole `tsconfig.json`. */
  readonly tsconfig: Readonly<Record<string, unknown>>;
  /** Every command of the section's `sh` blocks, in order, as typed. */
  readonly commands: readonly string[];
}

/** The README's usage example and how it says to run it. */
export interface ReadmeUsage {
  /** The example (`<!-- example:begin -->`), saved as the file the main file imports. */
  readonly example: string;
  /** The main file (`<!-- example:main:begin -->`), which imports the example and calls it. */
  readonly main: string;
  /** The file name the main file imports the example from, as written there (`./divide.js`). */
  readonly exampleImport: string;
  /** The commands of the `sh` block after the main file, as typed. */
  readonly run: readonly string[];
}

/** The text of a `## heading` section, up to the next `## ` heading. */
export function readmeSection(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README.md has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** Every fenced block of the text, in order. An unclosed fence is an error, not a lost block. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    if (open === undefined) {
      const fence = /^```(\S*)\s*$/.exec(line);
      if (fence) open = { lang: fence[1] ?? '', lines: [] };
    } else if (line.startsWith('```')) {
      blocks.push({ lang: open.lang, code: `${open.lines.join('\n')}\n` });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  if (open !== undefined) throw new Error('a fenced block is never closed');
  return blocks;
}

/** The non-empty lines of every `sh` block, which is what a reader copies into a terminal. */
export function shellCommands(markdown: string): string[] {
  return fencedBlocks(markdown)
    .filter(({ lang }) => lang === 'sh')
    .flatMap(({ code }) => code.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function parseJsonBlock(code: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(code);
  } catch (error: unknown) {
    throw new Error(
      `the ${what} block is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`the ${what} block is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * The Install section: its two `json` blocks (the one with `compilerOptions` is the
 * `tsconfig.json`, the other the `package.json` fields) and its commands.
 */
export function readmeInstall(readme: string): ReadmeInstall {
  const section = readmeSection(readme, 'Install');
  const json = fencedBlocks(section).filter(({ lang }) => lang === 'json');
  if (json.length !== 2) {
    throw new Error(
      `the Install section should show two json blocks (package.json, tsconfig.json), found ${json.length}`,
    );
  }
  const objects = json.map(({ code }, index) =>
    parseJsonBlock(code, `Install section's json #${index + 1}`),
  );
  const tsconfig = objects.find((object) => 'compilerOptions' in object);
  const packageJson = objects.find((object) => !('compilerOptions' in object));
  if (tsconfig === undefined || packageJson === undefined) {
    throw new Error(
      'the Install section should show package.json fields and a tsconfig.json with compilerOptions',
    );
  }
  return { packageJson, tsconfig, commands: shellCommands(section) };
}

function between(text: string, name: string): string {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end, start);
  if (start === -1 || stop === -1) {
    throw new Error(`README.md has no ${begin} … ${end} pair`);
  }
  const [block, ...others] = fencedBlocks(
    text.slice(start + begin.length, stop),
  );
  if (block?.lang !== 'ts' || others.length > 0) {
    throw new Error(`${begin} should hold exactly one ts block`);
  }
  return block.code;
}

/** The Usage section: the example, the main file and the commands after it. */
export function readmeUsage(readme: string): ReadmeUsage {
  const section = readmeSection(readme, 'Usage');
  const example = between(section, 'example');
  const main = between(section, 'example:main');
  const imported = /from '(\.\/[^']+\.js)'/.exec(main)?.[1];
  if (imported === undefined) {
    throw new Error('the main file imports no ./<file>.js');
  }
  const after = section.slice(section.indexOf('<!-- example:main:end -->'));
  const runBlock = fencedBlocks(after).find(({ lang }) => lang === 'sh');
  if (runBlock === undefined) {
    throw new Error('no sh block says how to run the main file');
  }
  return {
    example,
    main,
    exampleImport: imported,
    run: shellCommands(`\`\`\`sh\n${runBlock.code}\`\`\`\n`),
  };
}

/**
 * A command line as argv arrays, one per `&&` step. Only plain words are understood: quotes,
 * pipes, redirections or variables fail loudly rather than run as something else.
 */
export function commandSteps(line: string): string[][] {
  if (/["'`$|;<>\\]/.test(line)) {
    throw new Error(`not a plain command line: ${line}`);
  }
  return line.split('&&').map((step) => {
    const argv = step.trim().split(/\s+/);
    if (argv[0] === '') throw new Error(`an empty step in: ${line}`);
    return argv;
  });
}
