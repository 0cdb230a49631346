import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isToolError } from '@candor/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { temporaryRoot } from './__fixtures__/call-tool.ts';
import { WorkspaceGuard } from './workspace-guard.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src/a.ts'), '');
  await symlink('/etc', join(root, 'etc-link'));
  await symlink('src', join(root, 'src-link'));
  await symlink('/nonexistent-candor-target/file', join(root, 'dangling-out'));
  await symlink('src/new.ts', join(root, 'dangling-in'));
  await symlink('loop-b', join(root, 'loop-a'));
  await symlink('loop-a', join(root, 'loop-b'));
});

afterEach(async () => {
  await cleanup();
});

async function codeOf(guard: WorkspaceGuard, path: string): Promise<string> {
  try {
    await guard.resolve(path);
    return 'allowed';
  } catch (error: unknown) {
    return isToolError(error) ? error.code : 'thrown';
  }
}

describe('WorkspaceGuard', () => {
  it.each([
    ['a file', 'src/a.ts', 'allowed'],
    ['the root', '.', 'allowed'],
    ['a missing file inside', 'src/missing/deeper.ts', 'allowed'],
    ['.. that stays inside', 'src/../src/a.ts', 'allowed'],
    ['a link that stays inside', 'src-link/a.ts', 'allowed'],
    ['a dangling link that stays inside', 'dangling-in', 'allowed'],
    ['.. out of the root', '../x', 'ACCESS_DENIED'],
    ['.. out through a subdirectory', 'src/../../x', 'ACCESS_DENIED'],
    ['an absolute path elsewhere', '/etc/passwd', 'ACCESS_DENIED'],
    ['a link out of the root', 'etc-link/passwd', 'ACCESS_DENIED'],
    ['a missing file behind a link out', 'etc-link/new-file', 'ACCESS_DENIED'],
    ['a dangling link out of the root', 'dangling-out', 'ACCESS_DENIED'],
    ['a link loop', 'loop-a', 'INVALID_PARAM'],
    ['a NUL byte', 'src/a.ts\0.png', 'INVALID_PARAM'],
  ])('%s → %s', async (_name, path, expected) => {
    expect(await codeOf(new WorkspaceGuard(root), path)).toBe(expected);
  });

  it('resolves to the real path and a relative display path', async () => {
    const guard = new WorkspaceGuard(root);
    expect(await guard.resolve('src-link/a.ts')).toEqual({
      absolute: join(root, 'src/a.ts'),
      relative: 'src/a.ts',
    });
    expect((await guard.resolve(join(root, 'src'))).relative).toBe('src');
    expect((await guard.resolve('.')).relative).toBe('.');
  });

  it('accepts paths under the root as configured when the root itself is a link', async () => {
    await symlink(root, `${root}-alias`);
    try {
      const guard = new WorkspaceGuard(`${root}-alias`);
      expect((await guard.resolve(`${root}-alias/src/a.ts`)).relative).toBe(
        'src/a.ts',
      );
      expect((await guard.resolve(join(root, 'src/a.ts'))).relative).toBe(
        'src/a.ts',
      );
    } finally {
      await rm(`${root}-alias`);
    }
  });

  it('reports a missing root as NOT_FOUND', async () => {
    expect(await codeOf(new WorkspaceGuard(join(root, 'nope')), 'a')).toBe(
      'NOT_FOUND',
    );
  });

  it('rejects an empty root at construction', () => {
    expect(() => new WorkspaceGuard('  ')).toThrow(/non-empty/);
  });
});
