import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { findExecutable } from './find-executable.ts';
import { searchTool } from './search-tool.ts';

// The differential test: ripgrep and the JavaScript engine get the same generated requests
// over the same generated files and must give the same outcome, code, matches, count and order.

const CASES = 220;
const SEED = 20261201;
const BATCH = 6;
const rgAvailable =
  'path' in
  (await findExecutable('rg', process.env['PATH'] ?? '', process.cwd()));

/** Characters the two dialects are most likely to read differently. */
const ALPHABET = [
  ...Array.from('abcxyzABCXYZ019_-. \t()[]{}\\^$|*+?/#&~:'),
  'é',
  'É',
  'ß',
  'ẞ',
  'K', // KELVIN SIGN, case-folds to k
  'ſ', // LONG S, case-folds to s
  'σ',
  'ς',
  'Σ',
  'ω',
  '٣', // ARABIC-INDIC DIGIT THREE: \d in Unicode, not in ASCII
  '\u00A0',
  '\u000B',
  '😀',
  '～',
];
const WORDS = ['foo', 'Foo', 'bar', 'needle', 'NEEDLE', 'straße', 'σίσυφος'];

/** A deterministic random source, so the corpus is the same on every run. */
function randomSource(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function textLines(random: () => number, lines: number): string[] {
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: lines }, () => {
    const parts: string[] = [];
    const length = Math.floor(random() * 8);
    for (let i = 0; i < length; i += 1) {
      parts.push(random() < 0.3 ? pick(WORDS) : pick(ALPHABET));
    }
    return parts.join('');
  });
}

/** The files of one corpus: relative path → content. */
function corpusFiles(seed: number): Map<string, string | Buffer> {
  const random = randomSource(seed);
  const files = new Map<string, string | Buffer>();
  const names = [
    'a.ts',
    'b.md',
    'A.txt',
    'é.txt',
    'z.ts',
    '～.txt',
    '😀.md',
    'a b.txt',
    'x.txt',
    'dir/c.ts',
    'dir/d.txt',
    'dir/sub/e.md',
    'dir-2/f.ts',
    'é/g.txt',
    '.hidden.ts',
    '.h/secret.txt',
  ];
  for (const name of names) {
    const lines = textLines(random, 1 + Math.floor(random() * 12));
    const ending = random() < 0.2 ? '\r\n' : '\n';
    const last = random() < 0.2 ? '' : ending;
    files.set(name, lines.join(ending) + last);
  }
  files.set('empty.txt', '');
  files.set('bom.txt', '\uFEFFfoo\nbar\n');
  files.set('early-nul.txt', Buffer.from('foo needle\n\0bar\n'));
  // Some 84 KB of lines: the NUL byte lies past ripgrep's first 64 KiB buffer.
  const filler = `foo 123 bar ${'y'.repeat(240)}\n`.repeat(330);
  files.set(
    'late-nul.txt',
    Buffer.concat([Buffer.from(filler), Buffer.from('needle\0\nfoo\n')]),
  );
  return files;
}

const corpora: { root: string; cleanup: () => Promise<void> }[] = [];

async function makeCorpus(seed: number, big: boolean) {
  const corpus = await temporaryRoot();
  for (const [path, content] of corpusFiles(seed)) {
    if (!big && path === 'late-nul.txt') continue;
    await mkdir(join(corpus.root, path, '..'), { recursive: true });
    await writeFile(join(corpus.root, path), content);
  }
  if (big) {
    // A line longer than ripgrep's first buffer grows it, which moves where the next file's NUL
    // byte is found; `zz-after.txt` comes after it in path order.
    await writeFile(
      join(corpus.root, 'long-line.txt'),
      `foo ${'x'.repeat(70_000)}\n`,
    );
    await writeFile(
      join(corpus.root, 'zz-after.txt'),
      Buffer.concat([
        Buffer.from(`needle foo ${'z'.repeat(240)}\n`.repeat(400)),
        Buffer.of(0),
        Buffer.from('needle\n'),
      ]),
    );
  }
  await symlink(join(corpus.root, 'a.ts'), join(corpus.root, 'link.ts'));
  await symlink(join(corpus.root, 'dir'), join(corpus.root, 'link-dir'));
  return corpus;
}

const literal = fc
  .constantFrom(...ALPHABET, ...WORDS)
  .map((text) => text.replace(/[.*+?^${}()|[\]\\#&~-]/g, '\\$&'));
const atom = fc.oneof(
  { weight: 6, arbitrary: literal },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '.',
      '\\d',
      '\\D',
      '\\w',
      '\\W',
      '\\s',
      '\\S',
      '\\b',
      '\\B',
      '^',
      '$',
      '\\A',
      '\\z',
      '[a-c]',
      '[^a ]',
      '[[:alpha:]]',
      '[[:^digit:]]',
      '[\\w-]',
      '[\\d\\s]',
      '[]a]',
      '\\pL',
      '\\p{Lu}',
      '\\p{Greek}',
      '\\PL',
      '\\x41',
      '\\x{E9}',
      '\\t',
      '\\.',
      '\\-',
    ),
  },
  {
    // What one dialect reads and the other does not: refused by both.
    weight: 1,
    arbitrary: fc.constantFrom(
      '\\1',
      '(?=a)',
      '(?!a)',
      '(?<=a)',
      '(?<n>a)',
      '\\Q.\\E',
      '\\C',
      '\\/',
      '\\e',
      '\\<',
      '\\_',
      '[a[b]]',
      '[a&&b]',
      'a{,2}',
      'x{',
      '\\n',
      '(',
      ')',
      '[z-a]',
      'a{1001}',
      '(?x)',
      '\\p{Foo}',
      '\\u0041',
      '\\0',
      '*',
    ),
  },
);
const quantifier = fc.constantFrom(
  '',
  '',
  '',
  '*',
  '+',
  '?',
  '{2}',
  '{1,3}',
  '{2,}',
  '*?',
  '+?',
);
const piece = fc
  .tuple(atom, quantifier)
  .map(([text, quantity]) => text + quantity);
const sequence = fc
  .array(piece, { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));
const regex = fc.oneof(
  { weight: 5, arbitrary: sequence },
  {
    weight: 2,
    arbitrary: fc
      .tuple(sequence, sequence)
      .map(([left, right]) => `${left}|${right}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('(', '(?:', '(?P<g>', '(?i)', '(?i:', '(?s)', '(?U)'),
        sequence,
        quantifier,
      )
      .map(([open, body, quantity]) =>
        open.endsWith(')') ? open + body : `${open}${body})${quantity}`,
      ),
  },
);
const request = fc.record({
  corpus: fc.nat({ max: 2 }),
  fixedStrings: fc.boolean(),
  regex,
  text: fc
    .array(fc.constantFrom(...ALPHABET, ...WORDS), {
      minLength: 1,
      maxLength: 3,
    })
    .map((parts) => parts.join('')),
  caseSensitive: fc.boolean(),
  include: fc.constantFrom(
    undefined,
    undefined,
    undefined,
    '*.ts',
    '*.md',
    '?.txt',
    '*é*',
    '**.txt',
    '*',
  ),
  path: fc.constantFrom(
    '.',
    '.',
    '.',
    'dir',
    'a.ts',
    'é',
    '.h',
    '.hidden.ts',
    'early-nul.txt',
    'late-nul.txt',
  ),
  maxMatches: fc.constantFrom(undefined, undefined, 1, 5),
});

/** Written by hand: the places where RE2 and Rust's regex are most likely to part. */
const HAND_PICKED = [
  '(?i)ß',
  '(?i)ẞ',
  '(?i)k',
  '(?i)[k]',
  '(?i)s',
  '(?i)σ',
  '(?i)Σ',
  '(?i)\\p{Lu}',
  '(?i)\\w',
  '(?i)\\W',
  '[^\\w]',
  '\\S+',
  '\\s',
  '[[:space:]]',
  '[[:word:]]+',
  '\\pN',
  '\\p{Nd}',
  '\\d',
  '\\x{212A}',
  '(?U)a+',
  '.',
  '(?s).',
  '^$',
  '\\A\\z',
  '(?m)^f',
  'foo$',
  '\\bfoo\\b',
  '\\Bo',
  'é\\b',
  '😀',
  '.😀',
  '[😀～]',
  '\\u{41}',
  '(?P<name>foo)|(?P<other>bar)',
  '(foo)(bar)?',
  'a{0}',
  '(|a)',
  '[\\^]',
  '\\{',
  'x*',
];

/** What both engines must agree on: everything but the engine's name and message wording. */
function outcome(response: Awaited<ReturnType<typeof callTool>>) {
  const data = response.data as
    { matches?: unknown; count?: unknown } | undefined;
  return {
    code: codeOf(response),
    reason: response.status === 'partial' ? response.reason : undefined,
    matches: data?.matches,
    count: data?.count,
  };
}

describe.skipIf(!rgAvailable)(
  `ripgrep and the JavaScript engine agree${rgAvailable ? '' : ' (skipped: rg is not on PATH)'}`,
  () => {
    beforeAll(async () => {
      corpora.push(
        await makeCorpus(1, true),
        await makeCorpus(2, false),
        await makeCorpus(3, false),
      );
    });

    afterAll(async () => {
      await Promise.all(corpora.map((corpus) => corpus.cleanup()));
    });

    it(`on ${CASES} generated (corpus, pattern, options) cases`, async () => {
      const cases = [
        ...fc.sample(request, { seed: SEED, numRuns: CASES }),
        ...HAND_PICKED.flatMap((regex) =>
          [true, false].map((caseSensitive) => ({
            corpus: 0,
            fixedStrings: false,
            regex,
            text: '',
            caseSensitive,
            include: undefined,
            path: '.',
            maxMatches: undefined,
          })),
        ),
      ];
      const tools = corpora.map(({ root }) => ({
        js: searchTool({ root, engine: 'js', maxMatches: 50 }),
        rg: searchTool({ root, engine: 'rg', maxMatches: 50 }),
      }));
      const differences: unknown[] = [];
      const codes = new Map<string, number>();
      const compare = async (generated: (typeof cases)[number]) => {
        const args = {
          pattern: generated.fixedStrings ? generated.text : generated.regex,
          fixedStrings: generated.fixedStrings,
          caseSensitive: generated.caseSensitive,
          path: generated.path,
          ...(generated.include === undefined
            ? {}
            : { include: generated.include }),
          ...(generated.maxMatches === undefined
            ? {}
            : { maxMatches: generated.maxMatches }),
        };
        const pair = tools[generated.corpus];
        if (pair === undefined) throw new Error('no such corpus');
        const [js, rg] = (
          await Promise.all([callTool(pair.js, args), callTool(pair.rg, args)])
        ).map(outcome);
        if (js === undefined || rg === undefined) throw new Error('no outcome');
        codes.set(js.code, (codes.get(js.code) ?? 0) + 1);
        if (JSON.stringify(js) !== JSON.stringify(rg)) {
          differences.push({ corpus: generated.corpus, args, js, rg });
        }
      };
      // A few cases at a time: ripgrep's start-up overlaps the JavaScript engine's work.
      for (let next = 0; next < cases.length; next += BATCH) {
        await Promise.all(cases.slice(next, next + BATCH).map(compare));
      }
      expect(differences).toEqual([]);
      // The cases reach every kind of outcome, so agreement is not agreement on nothing.
      expect(codes.get('success')).toBeGreaterThan(CASES / 3);
      expect(codes.get('partial')).toBeGreaterThan(0);
      expect(codes.get('INVALID_PARAM')).toBeGreaterThan(CASES / 20);
    }, 120_000);
  },
);
