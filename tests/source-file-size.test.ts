import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// A source file past 400 lines is holding more than one concern (the house style): each stage
// or concern gets a file named after it. Tests are left out; the exceptions below say why.
const root = join(import.meta.dirname, '..');
const MAX_LINES = 400;

/**
 * Files allowed past the limit, each with its reason. An entry whose file is gone or back under
 * the limit fails too, so the list only shrinks.
 */
const exceptions: Readonly<Record<string, string>> = {};

/** Whether a file name is a test (colocated tests, type tests, property tests). */
function isTest(name: string): boolean {
  return /\.test(-d)?\.[cm]?tsx?$/.test(name);
}

/** Every non-test TypeScript file under `dir`, as paths from the repo root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.[cm]?tsx?$/.test(entry.name) && !isTest(entry.name)
      ? [relative(root, path).split('\\').join('/')]
      : [];
  });
}

/** Lines as an editor counts them: a final newline ends the last line, it starts no new one. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Files past `max` lines that have no exception, and exceptions that no longer apply. */
export function sizeProblems(
  sizes: ReadonlyMap<string, number>,
  allowed: Readonly<Record<string, string>>,
  max: number,
): string[] {
  const problems: string[] = [];
  for (const [path, lines] of sizes) {
    if (lines > max && allowed[path] === undefined) {
      problems.push(`${path}: ${String(lines)} lines (at most ${String(max)})`);
    }
  }
  for (const [path, reason] of Object.entries(allowed)) {
    if (reason.trim() === '')
      problems.push(`${path}: an exception needs a reason`);
    const lines = sizes.get(path);
    if (lines === undefined) {
      problems.push(
        `${path}: listed as an exception, but there is no such source file`,
      );
    } else if (lines <= max) {
      problems.push(
        `${path}: listed as an exception, but has ${String(lines)} lines now; remove the entry`,
      );
    }
  }
  return problems;
}

const packagesDir = join(root, 'packages');
const sizes = new Map(
  readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const src = join(packagesDir, entry.name, 'src');
      try {
        return sourceFiles(src);
      } catch {
        return [];
      }
    })
    .map((path) => [path, lineCount(readFileSync(join(root, path), 'utf8'))]),
);

describe('source file size', () => {
  it('finds the source files of the packages', () => {
    expect(sizes.has('packages/registry/src/tool-registry.ts')).toBe(true);
    expect([...sizes.keys()].some(isTest)).toBe(false);
  });

  it(`keeps every source file under packages/*/src at ${String(MAX_LINES)} lines or fewer, but the listed exceptions`, () => {
    expect(sizeProblems(sizes, exceptions, MAX_LINES)).toEqual([]);
  });

  it('gives the registry no exception, and its class stays under 300 lines', () => {
    expect(
      Object.keys(exceptions).filter((path) =>
        path.startsWith('packages/registry/'),
      ),
    ).toEqual([]);
    expect(sizes.get('packages/registry/src/tool-registry.ts')).toBeLessThan(
      300,
    );
  });

  it('reports a long file, a stale exception and a missing one', () => {
    const problems = sizeProblems(
      new Map([
        ['packages/a/src/long.ts', 401],
        ['packages/a/src/short.ts', 400],
        ['packages/a/src/allowed.ts', 900],
      ]),
      {
        'packages/a/src/allowed.ts': 'split pending',
        'packages/a/src/short.ts': 'split pending',
        'packages/a/src/gone.ts': 'split pending',
      },
      400,
    );
    expect(problems).toEqual([
      'packages/a/src/long.ts: 401 lines (at most 400)',
      'packages/a/src/short.ts: listed as an exception, but has 400 lines now; remove the entry',
      'packages/a/src/gone.ts: listed as an exception, but there is no such source file',
    ]);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
  });
});
