import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requireZod4, SUPPORTED_ZOD_RANGE } from './require-zod-4.ts';

afterEach(() => {
  vi.doUnmock('zod');
  vi.resetModules();
});

// zod 4 ships the zod 3 API as `zod/v3`: standing in for `zod`, it is what a project with zod 3
// installed hands this package.
async function withZod3<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  vi.doMock('zod', async () => await import('zod/v3'));
  return await load();
}

describe('requireZod4', () => {
  it('passes with zod 4, the range the peer dependency declares', () => {
    expect(() => {
      requireZod4();
    }).not.toThrow();
    const manifest = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'),
    ) as { peerDependencies: Record<string, string> };
    expect(manifest.peerDependencies['zod']).toBe(SUPPORTED_ZOD_RANGE);
  });

  it('names zod 3 and the range needed when the imported zod is zod 3', async () => {
    const module = await withZod3(() => import('./require-zod-4.ts'));
    expect(() => {
      module.requireZod4();
    }).toThrow(
      `@candor/tools needs zod ${SUPPORTED_ZOD_RANGE} (its peer dependency), but found zod 3`,
    );
  });

  it('fails the import of the package with that message, not with a missing zod function', async () => {
    await expect(withZod3(() => import('./index.ts'))).rejects.toThrow(
      /needs zod \^4\.0\.17 \(its peer dependency\), but found zod 3: install zod@4/,
    );
  });
});
