import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const docs = join(root, 'docs');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

// The site's own pages; the package pages only include the READMEs. The migration guide's step
// blocks are also compared with the compiled steps in apps/demo (migration-guide.test.ts).
const pages = [
  ...readdirSync(docs)
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(docs, file)),
  ...['concepts', 'guides'].flatMap((folder) =>
    readdirSync(join(docs, folder))
      .filter((file) => file.endsWith('.md'))
      .map((file) => join(docs, folder, file)),
  ),
];
// The package READMEs, which the site's Packages pages include. The root README's blocks are
// each compared with a compiled file in apps/demo (readme-example.test.ts,
// readme-frameworks.test.ts) or run by the install test, so they are not repeated here.
const readmes = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir, 'README.md'))
  .filter((file) => existsSync(file));

interface Block {
  readonly page: string;
  readonly line: number;
  readonly code: string;
  /** What a fragment assumes is in scope: the TypeScript of a `<!-- type-checked after: -->` comment. */
  readonly context?: string;
}

/**
 * A fragment that uses a value the reader has from elsewhere (the `registry` they built, their
 * `model`) says so in an HTML comment on the lines just above its fence, hidden on GitHub and on
 * the site:
 *
 *     <!-- type-checked after:
 *     import type { ToolRegistry } from '@candor/registry';
 *     declare const registry: ToolRegistry;
 *     -->
 *
 * The comment's TypeScript is put before the block, in the block's own module, and checked with
 * it; without such a comment a block must compile on its own.
 */
const contextComment =
  /<!-- type-checked after:\n((?:(?!-->)[\s\S])*)\n-->\n*$/;

/**
 * A snippet kept equal to a compiled file (`<!-- snippet: name -->` just above its fence) shows
 * its imports in the ts block before that comment; that block is the snippet's context.
 */
function importsAbove(
  blocks: readonly Block[],
  lines: readonly string[],
  fence: number,
): string | undefined {
  const previous = blocks.at(-1);
  if (previous === undefined) return undefined;
  const previousEnd = previous.line + previous.code.split('\n').length;
  const between = lines.slice(previousEnd + 1, fence);
  const isImports = previous.code
    .split('\n')
    .every((line) => line.startsWith('import ') || line.trim() === '');
  const onlySnippetComment = between.every(
    (line) => line.trim() === '' || /^<!-- snippet: [\w-]+ -->$/.test(line),
  );
  return isImports && onlySnippetComment && between.some((l) => l !== '')
    ? previous.code
    : undefined;
}

function tsBlocks(page: string): Block[] {
  const blocks: Block[] = [];
  const lines = readFileSync(page, 'utf8').split('\n');
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[index] ?? '')) continue;
    const end = lines.findIndex(
      (line, at) => at > index && line.startsWith('```'),
    );
    if (end === -1) throw new Error(`${page}:${index + 1}: unclosed block`);
    const context =
      contextComment.exec(lines.slice(0, index).join('\n'))?.[1] ??
      importsAbove(blocks, lines, index);
    blocks.push({
      page: relative(root, page),
      line: index + 1,
      code: lines.slice(index + 1, end).join('\n'),
      ...(context === undefined ? {} : { context }),
    });
    index = end;
  }
  return blocks;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Where a bare specifier of a snippet resolves: @candor/* to the workspace package (its
// `@candor/source` condition points at src/), anything else to the copy a package depends on.
function resolvePackage(specifier: string): string {
  const candor = /^@candor\/([^/]+)/.exec(specifier);
  if (candor?.[1]) return join(root, 'packages', candor[1]);
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : (specifier.split('/')[0] ?? specifier);
  const holders = [
    root,
    ...readdirSync(join(root, 'packages')).map((dir) =>
      join(root, 'packages', dir),
    ),
  ];
  for (const holder of holders) {
    const path = join(holder, 'node_modules', name);
    if (existsSync(path)) return path;
  }
  throw new Error(`no workspace package depends on ${name}`);
}

/** Type-checks the blocks as one project, one module per block; returns tsc's report. */
async function typecheck(blocks: readonly Block[]): Promise<{
  code: number;
  output: string;
  files: Map<string, Block>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'candor-docs-blocks-'));
  dirs.push(dir);
  const files = new Map<string, Block>();
  const specifiers = new Set<string>(['@types/node']);
  blocks.forEach((block, index) => {
    const file = `block-${index}.ts`;
    files.set(file, block);
    const source =
      block.context === undefined
        ? block.code
        : `${block.context}\n${block.code}`;
    writeFileSync(join(dir, file), source);
    for (const match of source.matchAll(/from '([^'.][^']*)'/g)) {
      if (!match[1]?.startsWith('node:')) specifiers.add(match[1] ?? '');
    }
  });
  for (const specifier of specifiers) {
    const name = specifier.startsWith('@')
      ? specifier.split('/').slice(0, 2).join('/')
      : (specifier.split('/')[0] ?? specifier);
    const link = join(dir, 'node_modules', name);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(resolvePackage(specifier), link, 'dir');
  }
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(root, 'tsconfig.base.json'),
      // A snippet shows a value without using it; everything else stays as strict as the repo.
      compilerOptions: { noUnusedLocals: false, noUnusedParameters: false },
      include: [join(dir, '*.ts')],
    }),
  );
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [
      tsc,
      '-p',
      join(dir, 'tsconfig.json'),
      '--pretty',
      'false',
    ]);
    return { code: 0, output: stdout, files };
  } catch (error: unknown) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? 1, output: failed.stdout ?? '', files };
  }
}

/** tsc's report with each block file replaced by the page and line it came from. */
function onPages(output: string, files: Map<string, Block>): string {
  return output.replace(
    /block-\d+\.ts\((\d+),(\d+)\)/g,
    (whole: string, line: string) => {
      const file = /block-\d+\.ts/.exec(whole)?.[0] ?? '';
      const block = files.get(file);
      // A line of the context comment maps to the fence or above it, where the comment sits.
      const shift = block?.context?.split('\n').length ?? 0;
      return block
        ? `${block.page}:${block.line + Number(line) - shift}`
        : whole;
    },
  );
}

describe('the code blocks of the documentation site', () => {
  const blocks = [...pages, ...readmes].flatMap(tsBlocks);

  it('has blocks in every guide and concept page', () => {
    for (const folder of ['concepts', 'guides']) {
      for (const file of readdirSync(join(docs, folder))) {
        expect(
          blocks.some((block) => block.page === `docs/${folder}/${file}`),
          `docs/${folder}/${file} has no ts block`,
        ).toBe(true);
      }
    }
  });

  it('type-check against the packages, each block on its own', async () => {
    const { code, output, files } = await typecheck(blocks);
    expect(onPages(output, files)).toBe('');
    expect(code).toBe(0);
  }, 120_000);

  it('reads every package README with ts blocks', () => {
    for (const readme of readmes) {
      if (!/^```(ts|typescript)\s*$/m.test(readFileSync(readme, 'utf8')))
        continue;
      const page = relative(root, readme);
      expect(
        blocks.some((block) => block.page === page),
        page,
      ).toBe(true);
    }
    expect(blocks.some((block) => block.context !== undefined)).toBe(true);
  });

  it('would catch a block that misuses the API, or a fragment without its context', async () => {
    // The same fragment twice: once under its context comment, once without one, after text.
    const dir = mkdtempSync(join(tmpdir(), 'candor-docs-page-'));
    dirs.push(dir);
    const page = join(dir, 'fragments.md');
    writeFileSync(
      page,
      [
        '<!-- type-checked after:', // line 1
        "import type { ToolRegistry } from '@candor/registry';",
        'declare const registry: ToolRegistry;',
        '-->',
        '',
        '```ts', // line 6
        'export const tools = registry.list();',
        '```',
        '',
        'The registry of the block above.',
        '',
        '```ts', // line 12
        'export const tools = registry.list();',
        '```',
        '',
      ].join('\n'),
    );
    const fragments = tsBlocks(page);
    expect(fragments.map((block) => block.context !== undefined)).toEqual([
      true,
      false,
    ]);
    const { code, output, files } = await typecheck([
      {
        page: 'docs/broken.md',
        line: 1,
        code: [
          "import { ToolError } from '@candor/tools';",
          "export const error = new ToolError('NOT_FOUND', 'positional');",
        ].join('\n'),
      },
      ...fragments,
    ]);
    expect(code).not.toBe(0);
    const report = onPages(output, files).trim().split('\n');
    expect(report).toHaveLength(2);
    expect(report[0]).toMatch(/docs\/broken\.md:3.*TS2554/);
    expect(report[1]).toMatch(/fragments\.md:13.*TS2304.*'registry'/);
  }, 120_000);
});
