import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import {
  privilegeMode,
  runUnprivileged,
} from './__fixtures__/run-unprivileged.ts';
import { findExecutable } from './find-executable.ts';
import { searchTool } from './search-tool.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await mkdir(join(root, 'src/nested'), { recursive: true });
  await mkdir(join(root, '.hidden'));
  await mkdir(join(root, 'a-b'));
  await writeFile(
    join(root, 'src/app.ts'),
    'const needle = 1;\nconst hay = 2;\n',
  );
  await writeFile(
    join(root, 'src/nested/deep.ts'),
    'hay\nNeedle twice needle\n',
  );
  await writeFile(join(root, 'src/notes.md'), 'a needle in markdown\r\n');
  await writeFile(join(root, 'a-b/x.txt'), 'needle in a-b\n');
  await writeFile(join(root, '.hidden/secret.ts'), 'needle hidden\n');
  await writeFile(join(root, '.dotfile'), 'needle dot\n');
  await writeFile(join(root, 'blob.bin'), Buffer.from('needle\n\0needle\n'));
  await writeFile(join(root, 'src/.gitignore'), 'app.ts\n');
  await symlink(join(root, 'src'), join(root, 'link-to-src'));
  await symlink('/etc', join(root, 'escape'));
});

afterEach(async () => {
  await cleanup();
});

const rgLookup = await findExecutable(
  'rg',
  process.env['PATH'] ?? '',
  process.cwd(),
);
const rgAvailable = 'path' in rgLookup;
const engines = [
  { engine: 'js' as const, skip: false, label: 'js engine' },
  {
    engine: 'rg' as const,
    skip: !rgAvailable,
    label: rgAvailable ? 'rg engine' : 'rg engine (skipped: rg is not on PATH)',
  },
];

const privileges = await privilegeMode();

interface SearchData {
  engine: string;
  count: number;
  matches: { path: string; line: number; text: string }[];
}

describe.each(engines)('search with the $label', ({ engine, skip }) => {
  const tool = () => searchTool({ root, engine });

  it.skipIf(skip).each([
    ['matches', { pattern: 'needle' }, 'success'],
    ['zero matches', { pattern: 'no-such-text' }, 'success'],
    ['a bad regex', { pattern: '(unclosed' }, 'INVALID_PARAM'],
    ['a bad quantifier', { pattern: 'a{2,1}' }, 'INVALID_PARAM'],
    ['look-around', { pattern: 'a(?=b)' }, 'INVALID_PARAM'],
    ['a backreference', { pattern: '(a)\\1' }, 'INVALID_PARAM'],
    [
      'a path glob in include',
      { pattern: 'x', include: 'src/*.ts' },
      'INVALID_PARAM',
    ],
    ['a missing path', { pattern: 'x', path: 'missing' }, 'NOT_FOUND'],
    ['a path with ..', { pattern: 'x', path: '..' }, 'ACCESS_DENIED'],
    [
      'a symlink escaping the root',
      { pattern: 'x', path: 'escape' },
      'ACCESS_DENIED',
    ],
    ['an empty pattern', { pattern: '' }, 'INVALID_PARAM'],
    ['a line break escape', { pattern: 'a\\nb' }, 'INVALID_PARAM'],
    ['a literal line break', { pattern: 'a\nb' }, 'INVALID_PARAM'],
    ['a negated include', { pattern: 'x', include: '!*.ts' }, 'INVALID_PARAM'],
    ['a (?<name>) group', { pattern: '(?<n>a)' }, 'INVALID_PARAM'],
    ['a \\Q…\\E quote', { pattern: '\\Q.\\E' }, 'INVALID_PARAM'],
    ['an escape ripgrep lacks', { pattern: 'a\\/b' }, 'INVALID_PARAM'],
    ['a nested class', { pattern: '[a[b]]' }, 'INVALID_PARAM'],
    ['a class set operation', { pattern: '[a&&b]' }, 'INVALID_PARAM'],
    ['a { that starts no repetition', { pattern: 'a{,2}' }, 'INVALID_PARAM'],
    ['a (?P<name>) group', { pattern: '(?P<n>needle)' }, 'success'],
    ['an x flag', { pattern: '(?x)needle' }, 'INVALID_PARAM'],
    ['a Unicode class', { pattern: '\\pL\\p{Greek}?' }, 'success'],
    ['a POSIX class', { pattern: '[[:alpha:]]' }, 'success'],
  ])('%s → %s', async (_name, args, expected) => {
    const response = await callTool(tool(), args);
    expect(codeOf(response)).toBe(expected);
  });

  it.skipIf(skip)(
    'finds lines in sorted path order, skipping hidden, binary and linked files',
    async () => {
      const response = await callTool(tool(), { pattern: 'needle' });
      expect(response.status).toBe('success');
      const data = response.data as SearchData;
      expect(data.engine).toBe(engine);
      expect(data.matches).toEqual([
        { path: 'a-b/x.txt', line: 1, text: 'needle in a-b' },
        { path: 'src/app.ts', line: 1, text: 'const needle = 1;' },
        { path: 'src/nested/deep.ts', line: 2, text: 'Needle twice needle' },
        { path: 'src/notes.md', line: 1, text: 'a needle in markdown' },
      ]);
      expect(data.count).toBe(4);
    },
  );

  it.skipIf(skip)('zero matches is SUCCESS with count 0', async () => {
    const response = await callTool(tool(), { pattern: 'absent' });
    expect(response.status).toBe('success');
    expect(response.data).toMatchObject({ count: 0, matches: [] });
  });

  it.skipIf(skip)(
    'matches $ before the line break, not before a carriage return, and folds Unicode case',
    async () => {
      const crlf = await callTool(tool(), { pattern: 'markdown$' });
      expect((crlf.data as SearchData).count).toBe(0);
      const lf = await callTool(tool(), { pattern: 'needle = 1;$' });
      expect((lf.data as SearchData).count).toBe(1);
      await writeFile(join(root, 'kelvin.txt'), '\u212A marks kelvin\n');
      const folded = await callTool(tool(), {
        pattern: 'k marks',
        caseSensitive: false,
      });
      expect((folded.data as SearchData).matches).toEqual([
        { path: 'kelvin.txt', line: 1, text: '\u212A marks kelvin' },
      ]);
    },
  );

  it.skipIf(skip)(
    'skips hidden files even when include matches them, reads a BOM as part of the line, and matches include on name bytes',
    async () => {
      const everything = await callTool(tool(), {
        pattern: 'needle',
        include: '*',
      });
      expect(
        (everything.data as SearchData).matches.map((match) => match.path),
      ).toEqual([
        'a-b/x.txt',
        'src/app.ts',
        'src/nested/deep.ts',
        'src/notes.md',
      ]);
      await writeFile(join(root, 'bom.txt'), '\uFEFFneedle\n');
      const anchored = await callTool(tool(), {
        pattern: '^needle',
        path: 'bom.txt',
      });
      expect((anchored.data as SearchData).count).toBe(0);
      await writeFile(join(root, '\u00e9.txt'), 'needle\n');
      const oneByte = await callTool(tool(), {
        pattern: 'needle',
        include: '?.txt',
      });
      // x.txt matches; é.txt is two bytes long before the dot.
      expect(
        (oneByte.data as SearchData).matches.map((match) => match.path),
      ).toEqual(['a-b/x.txt']);
      const twoBytes = await callTool(tool(), {
        pattern: 'needle',
        include: '??.txt',
      });
      expect((twoBytes.data as SearchData).matches).toEqual([
        { path: '\u00e9.txt', line: 1, text: 'needle' },
      ]);
    },
  );

  it.skipIf(skip)(
    'gives a Unicode script its tables may lack as success or INVALID_PARAM, never a failure',
    async () => {
      // Kawi is new in Unicode 15: re2js knows it, ripgrep 13 does not.
      const response = await callTool(tool(), { pattern: '\\p{Kawi}' });
      expect(['success', 'INVALID_PARAM']).toContain(codeOf(response));
      if (engine === 'js') expect(codeOf(response)).toBe('success');
    },
  );

  it.skipIf(skip)('names the problem of an invalid regex', async () => {
    const response = await callTool(tool(), { pattern: '(unclosed' });
    expect(response.status === 'error' && response.errorInfo.message).toMatch(
      /Invalid regular expression "\(unclosed": .*(group|\))/i,
    );
  });

  it.skipIf(skip)('is PARTIAL with the total past the cap', async () => {
    const response = await callTool(
      searchTool({ root, engine, maxMatches: 2 }),
      {
        pattern: 'needle',
      },
    );
    expect(response.status).toBe('partial');
    if (response.status !== 'partial') return;
    expect(response.reason).toBe('match_cap');
    expect(response.data).toMatchObject({ count: 4, truncated: true });
    expect((response.data as SearchData).matches).toHaveLength(2);
    expect(response.text).toContain('2 of 4');
  });

  it.skipIf(skip)(
    'honours case, fixed strings, include and a file path',
    async () => {
      const insensitive = await callTool(tool(), {
        pattern: 'NEEDLE',
        caseSensitive: false,
        include: '*.ts',
      });
      expect(
        (insensitive.data as SearchData).matches.map((m) => m.path),
      ).toEqual(['src/app.ts', 'src/nested/deep.ts']);
      const fixed = await callTool(tool(), {
        pattern: 'needle = 1;',
        fixedStrings: true,
      });
      expect((fixed.data as SearchData).count).toBe(1);
      const dotted = await callTool(tool(), {
        pattern: 'a.b',
        fixedStrings: true,
      });
      expect((dotted.data as SearchData).count).toBe(0);
      // A file given explicitly is searched even when it is binary, as ripgrep does.
      const file = await callTool(tool(), {
        pattern: 'needle',
        path: 'blob.bin',
      });
      expect((file.data as SearchData).count).toBe(2);
    },
  );
});

describe('search engine failures', () => {
  it('maps a ripgrep exit 2 that is not about the pattern to EXECUTION_ERROR', async () => {
    // A stand-in executable with ripgrep's failure contract: message on stderr, exit 2.
    const fake = join(root, 'fake-rg');
    await writeFile(
      fake,
      '#!/bin/sh\necho "rg: some file: Input/output error" >&2\nexit 2\n',
    );
    await chmod(fake, 0o755);
    const response = await callTool(
      searchTool({ root, engine: 'rg', rgPath: fake }),
      {
        pattern: 'needle',
      },
    );
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.text).toContain('Input/output error');
  });

  it('fails clearly when told to use ripgrep and it is missing', async () => {
    const response = await callTool(
      searchTool({ root, engine: 'rg', rgPath: join(root, 'no-rg') }),
      { pattern: 'needle' },
    );
    expect(codeOf(response)).toBe('EXECUTION_ERROR');
    expect(response.text).toContain('rg was not found');
  });

  for (const { engine, skip, label } of engines) {
    const reason =
      privileges.mode === 'skip' ? ` (skipped: ${privileges.reason})` : '';
    it.skipIf(skip || privileges.mode === 'skip')(
      `an unreadable directory is EXECUTION_ERROR with the ${label}${reason}`,
      async () => {
        await mkdir(join(root, 'locked'));
        await writeFile(join(root, 'locked/inside.txt'), 'needle\n');
        await chmod(join(root, 'locked'), 0o000);
        await chmod(root, 0o755);
        // Root reads any directory; as root, the search runs as `nobody` so the mode applies.
        const response = (
          privileges.mode === 'in-process'
            ? await callTool(searchTool({ root, engine }), {
                pattern: 'needle',
              })
            : JSON.parse(
                await runUnprivileged('./search-as-nobody.ts', [root, engine]),
              )
        ) as { status: string; errorInfo?: { code: string; message: string } };
        // Lets the cleanup remove it when the suite does not run as root.
        await chmod(join(root, 'locked'), 0o755);
        expect(response.errorInfo?.code).toBe('EXECUTION_ERROR');
        expect(response.errorInfo?.message).toContain('locked');
        expect(response.errorInfo?.message).toMatch(/permission denied/i);
      },
    );
  }
});

describe.skipIf(!rgAvailable)(
  'search engines agree on non-ASCII file order',
  () => {
    it('sorts by the bytes of the name, as ripgrep does', async () => {
      // U+FF5E sorts before U+1F600 in UTF-16 code units, after it in UTF-8 bytes.
      await mkdir(join(root, 'order'));
      await writeFile(join(root, 'order', '\u{1F600}.txt'), 'needle\n');
      await writeFile(join(root, 'order', '\uFF5E.txt'), 'needle\n');
      const paths = async (engine: 'js' | 'rg') =>
        (
          (
            await callTool(searchTool({ root, engine }), {
              pattern: 'needle',
              path: 'order',
            })
          ).data as SearchData
        ).matches.map((match) => match.path);
      expect(await paths('js')).toEqual(await paths('rg'));
    });
  },
);
