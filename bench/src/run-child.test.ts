import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChild } from './run-child.ts';

const folder = await mkdtemp(join(tmpdir(), 'candor-run-child-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

async function probe(name: string, source: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, source);
  return path;
}

describe('runChild', () => {
  it('runs a probe in plain Node when asked, its TypeScript compiled away', async () => {
    // Type annotations would be a syntax error in plain Node; the loader list would name tsx.
    const script = await probe(
      'plain.ts',
      `const loaders: readonly string[] = process.execArgv;\nprocess.stdout.write(JSON.stringify({ loaders, gc: typeof globalThis.gc }) + '\\n');\n`,
    );
    const plain = await runChild({
      script,
      args: [],
      timeoutMs: 60_000,
      plainNode: true,
    });
    expect(plain).toEqual({ loaders: ['--expose-gc'], gc: 'function' });
    const underTsx = (await runChild({
      script,
      args: [],
      timeoutMs: 60_000,
    })) as { loaders: string[] };
    expect(underTsx.loaders.join(' ')).toMatch(/tsx/u);
  });

  it('refuses a plain-Node probe that imports a file of the bench', async () => {
    const script = await probe(
      'relative.ts',
      `import { median } from './measure-tasks.ts';\nconsole.log(median([1]));\n`,
    );
    await expect(
      runChild({ script, args: [], timeoutMs: 60_000, plainNode: true }),
    ).rejects.toThrow(/imports a file of the bench/u);
  });
});
