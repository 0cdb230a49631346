import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A user who clones the repository can follow every reference in it: no file in it cites notes
// kept outside it (a research notes folder, or a shared folder beside the checkout). Trace tables
// cite vendors' public documentation or the fixtures here. This file spells the two folder names
// in pieces so that it does not cite them itself.
const root = join(import.meta.dirname, '..');
const research = ['research', '/'].join('');
const shared = ['shared', '/'].join('');
const outside = new RegExp(`${research}|${shared}`);

/** Tracked and new files of the whole repository, as a fresh clone plus this change would hold them. */
function files(): string[] {
  return execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard'],
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
    expect(listed).toContain('tests/outside-references.test.ts');
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
    const style = `../${shared}STYLE.md`;
    const notes = `${research}notes.md`;
    expect(citations('x.md', `one\nsee ${style}\n${notes}`)).toEqual([
      `x.md:2: see ${style}`,
      `x.md:3: ${notes}`,
    ]);
  });
});
