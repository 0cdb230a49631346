import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const guide = readFileSync(
  join(
    import.meta.dirname,
    '..',
    '..',
    '..',
    '..',
    'docs',
    'migrating-string-tools.md',
  ),
  'utf8',
);

const files: Record<string, string> = {
  'step-0': 'step-0-string-tool.ts',
  'step-1': 'step-1-response-type.ts',
  'step-2': 'step-2-success-data.ts',
  'step-3': 'step-3-precise-errors.ts',
};

function region(name: string): string {
  const source = readFileSync(
    join(import.meta.dirname, files[name] ?? ''),
    'utf8',
  );
  const match = new RegExp(
    `// #region ${name}\\n([\\s\\S]*?)// #endregion ${name}`,
  ).exec(source);
  if (!match?.[1])
    throw new Error(`${files[name] ?? name} has no region ${name}`);
  return match[1].trim();
}

function snippet(name: string): string {
  const match = new RegExp(
    `<!-- snippet: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``,
  ).exec(guide);
  if (!match?.[1]) throw new Error(`the guide has no snippet ${name}`);
  return match[1].trim();
}

describe('docs/migrating-string-tools.md', () => {
  it.each(Object.keys(files))(
    'shows %s exactly as the code that the tests run',
    (name) => {
      expect(snippet(name)).toBe(region(name));
    },
  );

  it('explains why text is never scanned, and how list() tracks legacy tools', () => {
    expect(guide).toContain('it never scans text for "Error:"');
    expect(guide).toContain('registry.list()');
  });
});
