import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { listDirTool } from './list-dir-tool.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await writeFile(join(root, 'b.txt'), 'bb');
  await writeFile(join(root, 'a.txt'), 'a');
  await mkdir(join(root, 'sub'));
  await mkdir(join(root, 'empty'));
  await symlink('b.txt', join(root, 'link'));
  await symlink('/etc', join(root, 'escape'));
});

afterEach(async () => {
  await cleanup();
});

describe('list_dir outcomes', () => {
  it.each([
    ['the root', {}, 'success'],
    ['an empty directory', { path: 'empty' }, 'success'],
    ['a missing directory', { path: 'missing' }, 'NOT_FOUND'],
    ['a file', { path: 'a.txt' }, 'INVALID_PARAM'],
    ['a path with ..', { path: '..' }, 'ACCESS_DENIED'],
    ['a symlink escaping the root', { path: 'escape' }, 'ACCESS_DENIED'],
  ])('%s → %s', async (_name, args, expected) => {
    const response = await callTool(listDirTool({ root }), args);
    expect(codeOf(response)).toBe(expected);
  });

  it('lists sorted entries with types and file sizes', async () => {
    const response = await callTool(listDirTool({ root }), { path: '.' });
    expect(response.status).toBe('success');
    expect(response.data).toEqual({
      path: '.',
      total: 6,
      entries: [
        { name: 'a.txt', type: 'file', size: 1 },
        { name: 'b.txt', type: 'file', size: 2 },
        { name: 'empty', type: 'directory' },
        { name: 'escape', type: 'symlink' },
        { name: 'link', type: 'symlink' },
        { name: 'sub', type: 'directory' },
      ],
    });
    expect(response.text.split('\n')).toContain('sub/');
  });

  it('is PARTIAL when the entry cap is hit, with the total', async () => {
    const response = await callTool(listDirTool({ root, maxEntries: 2 }), {});
    expect(response.status).toBe('partial');
    if (response.status !== 'partial') return;
    expect(response.reason).toBe('entry_cap');
    expect(response.data).toMatchObject({
      total: 6,
      truncated: true,
      entries: [{ name: 'a.txt' }, { name: 'b.txt' }],
    });
  });

  it('is SUCCESS at exactly the cap', async () => {
    const response = await callTool(listDirTool({ root, maxEntries: 6 }), {});
    expect(response.status).toBe('success');
  });
});
