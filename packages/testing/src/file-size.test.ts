import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

// A file past 400 lines holds more than one concern (house style); this keeps the package's
// sources, tests and fixtures under it.
const limit = 400;

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

it(`keeps every file in src under ${limit} lines`, () => {
  const long = sources(import.meta.dirname)
    .map((path) => ({
      path,
      lines: readFileSync(path, 'utf8').split('\n').length - 1,
    }))
    .filter((file) => file.lines > limit);
  expect(long).toEqual([]);
});
