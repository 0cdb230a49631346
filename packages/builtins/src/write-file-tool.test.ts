import {
  mkdir,
  readdir,
  readFile,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { readFileTool } from './read-file-tool.ts';
import { writeFileTool } from './write-file-tool.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await writeFile(join(root, 'notes.md'), 'first\n');
  await mkdir(join(root, 'dir'));
  await symlink('/tmp', join(root, 'escape'));
  await symlink('/nonexistent-candor-dir/x.txt', join(root, 'dangling'));
});

afterEach(async () => {
  await cleanup();
});

async function readData(path: string) {
  const response = await callTool(readFileTool({ root }), { path });
  return response.data as { sha256: string; mtimeMs: number };
}

describe('write_file outcomes', () => {
  it.each([
    ['a new file', { path: 'new.txt', content: 'x' }, 'success'],
    ['an existing file', { path: 'notes.md', content: 'x' }, 'success'],
    ['a missing parent', { path: 'a/b/c.txt', content: 'x' }, 'NOT_FOUND'],
    [
      'a missing parent, createParents',
      { path: 'a/b/c.txt', content: 'x', createParents: true },
      'success',
    ],
    ['a directory', { path: 'dir', content: 'x' }, 'IS_DIRECTORY'],
    ['a path with ..', { path: '../x.txt', content: 'x' }, 'ACCESS_DENIED'],
    [
      'a symlink escaping the root',
      { path: 'escape/candor-x.txt', content: 'x' },
      'ACCESS_DENIED',
    ],
    [
      'a dangling symlink out of the root',
      { path: 'dangling', content: 'x', createParents: true },
      'ACCESS_DENIED',
    ],
    [
      'a malformed hash',
      { path: 'notes.md', content: 'x', expectedSha256: 'abc' },
      'INVALID_PARAM',
    ],
  ])('%s → %s', async (_name, args, expected) => {
    const response = await callTool(writeFileTool({ root }), args);
    expect(codeOf(response)).toBe(expected);
  });

  it('writes the content and reports it', async () => {
    const response = await callTool(writeFileTool({ root }), {
      path: 'new.txt',
      content: 'héllo\n',
    });
    expect(response.status).toBe('success');
    expect(response.data).toMatchObject({
      path: 'new.txt',
      bytes: 7,
      created: true,
    });
    expect(await readFile(join(root, 'new.txt'), 'utf8')).toBe('héllo\n');
    // The hash it reports is the one read_file reports, so the two chain.
    expect((response.data as { sha256: string }).sha256).toBe(
      (await readData('new.txt')).sha256,
    );
  });

  it('does not create parents unless asked, and says how', async () => {
    const response = await callTool(writeFileTool({ root }), {
      path: 'deep/er/file.txt',
      content: 'x',
    });
    expect(response.status).toBe('error');
    expect(response.text).toContain('createParents');
    await expect(readFile(join(root, 'deep/er/file.txt'))).rejects.toThrow();
  });
});

describe('write_file at the name limit', () => {
  it('writes a name of exactly 255 bytes, the longest the guard lets through, and leaves no temporary file', async () => {
    // 85 three-byte characters: the temporary name beside it must fit in 255 bytes too, so it
    // cannot be cut by characters ('.' + 85 euro signs + a suffix was 281 bytes: ENAMETOOLONG).
    const name = '\u20ac'.repeat(85);
    expect(Buffer.byteLength(name)).toBe(255);
    for (const content of ['created\n', 'replaced\n']) {
      const response = await callTool(writeFileTool({ root }), {
        path: `dir/${name}`,
        content,
      });
      expect(response.status).toBe('success');
      expect(await readFile(join(root, 'dir', name), 'utf8')).toBe(content);
    }
    expect(await readdir(join(root, 'dir'))).toEqual([name]);
  });
});

describe('write_file optimistic lock', () => {
  it('writes when the hash still matches', async () => {
    const { sha256 } = await readData('notes.md');
    const response = await callTool(writeFileTool({ root }), {
      path: 'notes.md',
      content: 'second\n',
      expectedSha256: sha256,
    });
    expect(response.status).toBe('success');
    expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('second\n');
  });

  it('is a CONFLICT when the file changed since it was read, and leaves it alone', async () => {
    const { sha256 } = await readData('notes.md');
    await writeFile(join(root, 'notes.md'), 'someone else\n');
    const response = await callTool(writeFileTool({ root }), {
      path: 'notes.md',
      content: 'mine\n',
      expectedSha256: sha256,
    });
    expect(codeOf(response)).toBe('CONFLICT');
    expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe(
      'someone else\n',
    );
  });

  it('is a CONFLICT when the mtime moved', async () => {
    const { mtimeMs } = await readData('notes.md');
    await utimes(join(root, 'notes.md'), new Date(0), new Date(1_000_000));
    const response = await callTool(writeFileTool({ root }), {
      path: 'notes.md',
      content: 'mine\n',
      expectedMtimeMs: mtimeMs,
    });
    expect(codeOf(response)).toBe('CONFLICT');
    expect(response.status === 'error' && response.errorInfo.details).toEqual({
      expectedMtimeMs: mtimeMs,
      actualMtimeMs: 1_000_000,
    });
  });

  it('writes when the mtime still matches', async () => {
    const { mtimeMs } = await readData('notes.md');
    const response = await callTool(writeFileTool({ root }), {
      path: 'notes.md',
      content: 'mine\n',
      expectedMtimeMs: mtimeMs,
    });
    expect(response.status).toBe('success');
  });

  it('is a CONFLICT when the file was deleted since', async () => {
    const response = await callTool(writeFileTool({ root }), {
      path: 'gone.md',
      content: 'mine\n',
      expectedSha256: '0'.repeat(64),
    });
    expect(codeOf(response)).toBe('CONFLICT');
    expect(response.text).toContain('deleted');
    await expect(readFile(join(root, 'gone.md'))).rejects.toThrow();
  });
});
