import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md's "How a call flows" names the file of each stage of a call, in call
// order, so a newcomer finds each one by its name. This holds the section to the tree.
const root = join(import.meta.dirname, '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const registrySrc = join('packages', 'registry', 'src');

/** The text of the Markdown section under `heading`, up to the next heading of any level. */
export function sectionOf(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex(
    (line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading,
  );
  if (start === -1) throw new Error(`no section "${heading}"`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^#{1,6} /.test(line));
  return (end === -1 ? rest : rest.slice(0, end)).join('\n');
}

/** Every `packages/…/*.ts` path a text names in backticks, in the order it names them. */
export function namedPaths(text: string): string[] {
  return [...text.matchAll(/`(packages\/[\w./-]+\.ts)`/g)].map(
    (match) => match[1] ?? '',
  );
}

/** The named paths that are not files under `base`. */
export function missingPaths(paths: readonly string[], base: string): string[] {
  return paths.filter((path) => !existsSync(join(base, path)));
}

const section = sectionOf(doc, 'How a call flows');
const paths = namedPaths(section);

describe('docs/architecture.md, "How a call flows"', () => {
  it('names the stages, in call order', () => {
    const stages = [
      'read-call-options',
      'lookup-tool',
      'decode-arguments',
      'validate-arguments',
      'ask-approval',
      'run-call',
      'admit-call',
      'run-attempt',
      'normalise-response',
      'check-output',
      'finish-call',
    ].map((name) => `${registrySrc}/${name}.ts`);
    const positions = stages.map((stage) => paths.indexOf(stage));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('names only files that exist', () => {
    expect(paths.length).toBeGreaterThan(10);
    expect(missingPaths(paths, root)).toEqual([]);
  });

  it('fails on a path that does not exist', () => {
    const text = sectionOf(
      '## How a call flows\n\n1. `packages/registry/src/tool-registry.ts`, then `packages/registry/src/no-such-stage.ts`.\n\n## Next\n\n`packages/registry/src/elsewhere.ts`\n',
      'How a call flows',
    );
    expect(missingPaths(namedPaths(text), root)).toEqual([
      'packages/registry/src/no-such-stage.ts',
    ]);
  });

  it('names every source file of the registry', () => {
    const sources = readdirSync(join(root, registrySrc))
      .filter(
        (name) =>
          name.endsWith('.ts') &&
          !/\.test(-d)?\.ts$/.test(name) &&
          name !== 'index.ts',
      )
      .map((name) => `${registrySrc}/${name}`);
    expect(sources.filter((source) => !paths.includes(source))).toEqual([]);
  });
});
