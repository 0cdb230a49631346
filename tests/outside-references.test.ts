import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A user who clones the repository can follow every reference in it: nothing in the packages,
// the docs, the apps or the contributor guide cites notes kept outside it (a `research/` folder,
// `../shared/STYLE.md`). Trace tables cite vendors' public documentation or the fixtures here.
const root = join(import.meta.dirname, '..');
const scope = ['packages', 'docs', 'apps', 'CONTRIBUTING.md', 'README.md'];
const outside = /research\/|shared\//;

/** Tracked and new files under the scope, as a fresh clone plus this change would hold them. */
function files(): string[] {
  return execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...scope],
    { cwd: root, encoding: 'utf8' },
  )
    .split('\n')
    .filter((file) => file !== '');
}

/** `file:line: text` for each line that cites something outside the repository. */
function citations(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      outside.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
    );
}

describe('references', () => {
  it('cite nothing outside the repository', () => {
    const listed = files();
    expect(listed).toContain('CONTRIBUTING.md');
    expect(listed.some((file) => file.startsWith('packages/'))).toBe(true);
    const found = listed.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        return []; // listed but deleted in the working tree
      }
      return citations(file, text);
    });
    expect(found).toEqual([]);
  });

  it('would report a citation with its place', () => {
    expect(
      citations('x.md', 'one\nsee ../shared/STYLE.md\nresearch/notes.md'),
    ).toEqual(['x.md:2: see ../shared/STYLE.md', 'x.md:3: research/notes.md']);
  });
});
