import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectedLines } from '../install-test/example-projects.ts';

const ROOT = join(import.meta.dirname, '..');
const EXAMPLES = join(ROOT, 'examples');
const names = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('the examples/ projects', () => {
  it('are at least five, and outside the pnpm workspace', () => {
    expect(names.length).toBeGreaterThanOrEqual(5);
    const workspace = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
    expect(workspace).not.toMatch(/examples/);
  });

  it.each(names)(
    '%s names @candor/* versions as a user would and shows its expected lines',
    (name) => {
      const manifest = JSON.parse(
        readFileSync(join(EXAMPLES, name, 'package.json'), 'utf8'),
      ) as { dependencies: Record<string, string>; scripts: { start: string } };
      const candor = Object.entries(manifest.dependencies).filter(([dep]) =>
        dep.startsWith('@candor/'),
      );
      expect(candor.length).toBeGreaterThan(0);
      for (const [, range] of candor)
        expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(manifest.scripts.start).toBeTruthy();
      const readme = readFileSync(join(EXAMPLES, name, 'README.md'), 'utf8');
      expect(expectedLines(readme).length).toBeGreaterThan(0);
    },
  );

  it('reads the expected lines of a README, and refuses one without them', () => {
    expect(
      expectedLines('# x\n\nExpected output:\n\n```text\na → b\n\nc\n```\n'),
    ).toEqual(['a → b', 'c']);
    expect(() => expectedLines('# x\n\n```text\na\n```\n')).toThrow(
      /Expected output/,
    );
  });
});
