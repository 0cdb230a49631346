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

// The site's own pages. The migration guide's blocks are compared with the compiled and tested
// steps in apps/demo (migration-guide.test.ts); the package pages only include the READMEs.
const checkedByOthers = new Set(['migrating-string-tools.md']);
const pages = [
  ...readdirSync(docs)
    .filter((file) => file.endsWith('.md') && !checkedByOthers.has(file))
    .map((file) => join(docs, file)),
  ...['concepts', 'guides'].flatMap((folder) =>
    readdirSync(join(docs, folder))
      .filter((file) => file.endsWith('.md'))
      .map((file) => join(docs, folder, file)),
  ),
];

interface Block {
  readonly page: string;
  readonly line: number;
  readonly code: string;
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
    blocks.push({
      page: relative(root, page),
      line: index + 1,
      code: lines.slice(index + 1, end).join('\n'),
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
    writeFileSync(join(dir, file), block.code);
    for (const match of block.code.matchAll(/from '([^'.][^']*)'/g)) {
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
      return block ? `${block.page}:${block.line + Number(line)}` : whole;
    },
  );
}

describe('the code blocks of the documentation site', () => {
  const blocks = pages.flatMap(tsBlocks);

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

  it('would catch a block that misuses the API', async () => {
    const { code, output, files } = await typecheck([
      {
        page: 'docs/broken.md',
        line: 1,
        code: [
          "import { ToolError } from '@candor/tools';",
          "export const error = new ToolError('NOT_FOUND', 'positional');",
        ].join('\n'),
      },
    ]);
    expect(code).not.toBe(0);
    expect(onPages(output, files)).toMatch(/docs\/broken\.md:3.*TS2554/);
  }, 120_000);
});
