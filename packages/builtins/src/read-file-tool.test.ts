import { createHash } from 'node:crypto';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import {
  privilegeMode,
  runUnprivileged,
} from './__fixtures__/run-unprivileged.ts';
import { readFileTool } from './read-file-tool.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await writeFile(join(root, 'hello.txt'), 'one\ntwo\nthree\n');
  await writeFile(join(root, 'no-newline.txt'), 'alpha\nbeta');
  await writeFile(join(root, 'empty.txt'), '');
  // A text extension on binary content, and a binary-looking extension on text.
  await writeFile(
    join(root, 'looks-text.txt'),
    Buffer.from([0x61, 0x00, 0x62]),
  );
  await writeFile(
    join(root, 'latin1.md'),
    Buffer.from([0x63, 0x61, 0x66, 0xe9]),
  );
  await writeFile(
    join(root, 'latin1-mid.md'),
    Buffer.from('caf\xe9 noir', 'latin1'),
  );
  await writeFile(join(root, 'notes.bin'), 'plain text after all\n');
  await mkdir(join(root, 'dir'));
  await symlink('/etc', join(root, 'escape'));
  await symlink(join(root, 'hello.txt'), join(root, 'inside-link'));
});

afterEach(async () => {
  await cleanup();
});

describe('read_file outcomes', () => {
  it.each([
    ['a text file', { path: 'hello.txt' }, 'success'],
    ['a binary extension on text', { path: 'notes.bin' }, 'success'],
    ['a symlink that stays inside', { path: 'inside-link' }, 'success'],
    ['a missing file', { path: 'missing.txt' }, 'NOT_FOUND'],
    ['a directory', { path: 'dir' }, 'IS_DIRECTORY'],
    ['NUL bytes', { path: 'looks-text.txt' }, 'BINARY_FILE'],
    ['invalid UTF-8 at the end', { path: 'latin1.md' }, 'BINARY_FILE'],
    ['invalid UTF-8 inside', { path: 'latin1-mid.md' }, 'BINARY_FILE'],
    [
      'a symlink escaping the root',
      { path: 'escape/hostname' },
      'ACCESS_DENIED',
    ],
    ['a path with ..', { path: '../outside.txt' }, 'ACCESS_DENIED'],
    ['an absolute path elsewhere', { path: '/etc/hostname' }, 'ACCESS_DENIED'],
    [
      'an offset past the end',
      { path: 'hello.txt', offset: 9 },
      'INVALID_PARAM',
    ],
    ['an offset of 0', { path: 'hello.txt', offset: 0 }, 'INVALID_PARAM'],
  ])('%s → %s', async (_name, args, expected) => {
    const response = await callTool(readFileTool({ root }), args);
    expect(codeOf(response)).toBe(expected);
  });

  it('returns content, total lines, size, mtime and hash', async () => {
    const response = await callTool(readFileTool({ root }), {
      path: 'hello.txt',
    });
    expect(response.status).toBe('success');
    expect(response.text).toBe('one\ntwo\nthree\n');
    expect(response.data).toMatchObject({
      path: 'hello.txt',
      content: 'one\ntwo\nthree\n',
      totalLines: 3,
      startLine: 1,
      endLine: 3,
      size: 14,
      // sha256 of 'one\ntwo\nthree\n'
      sha256: createHash('sha256').update('one\ntwo\nthree\n').digest('hex'),
    });
    expect(typeof (response.data as { mtimeMs: unknown }).mtimeMs).toBe(
      'number',
    );
  });

  it('accepts an absolute path inside the root', async () => {
    const response = await callTool(readFileTool({ root }), {
      path: join(root, 'hello.txt'),
    });
    expect(response.status).toBe('success');
    expect(response.data).toMatchObject({ path: 'hello.txt' });
  });

  it('reads a range of lines by offset and limit', async () => {
    const response = await callTool(readFileTool({ root }), {
      path: 'hello.txt',
      offset: 2,
      limit: 1,
    });
    expect(response.status).toBe('success');
    expect(response.text).toBe('two\n');
    expect(response.data).toMatchObject({
      startLine: 2,
      endLine: 2,
      totalLines: 3,
    });
  });

  it('counts a last line without a newline, and an empty file as 0 lines', async () => {
    const last = await callTool(readFileTool({ root }), {
      path: 'no-newline.txt',
      offset: 2,
    });
    expect(last.text).toBe('beta');
    expect(last.data).toMatchObject({ totalLines: 2, endLine: 2 });
    const empty = await callTool(readFileTool({ root }), { path: 'empty.txt' });
    expect(empty.status).toBe('success');
    expect(empty.data).toMatchObject({
      content: '',
      totalLines: 0,
      startLine: 0,
    });
  });

  it('is PARTIAL past the cap, with the reason and the returned range', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(root, 'long.txt'), `${lines.join('\n')}\n`);
    const response = await callTool(readFileTool({ root, maxBytes: 40 }), {
      path: 'long.txt',
    });
    expect(response.status).toBe('partial');
    if (response.status !== 'partial') return;
    expect(response.reason).toBe('size_cap');
    // "line 1\n" … "line 5\n" is 35 bytes; "line 6\n" would pass 40.
    expect(response.data).toMatchObject({
      content: 'line 1\nline 2\nline 3\nline 4\nline 5\n',
      startLine: 1,
      endLine: 5,
      totalLines: 100,
      truncated: true,
    });
    expect(response.text).toContain('offset 6');
  });

  it('returns the head of a single line longer than the cap', async () => {
    await writeFile(join(root, 'wide.txt'), `${'é'.repeat(30)}\nnext\n`);
    const response = await callTool(readFileTool({ root, maxBytes: 9 }), {
      path: 'wide.txt',
    });
    expect(response.status).toBe('partial');
    // 9 bytes hold four 2-byte characters; the cut fifth one is dropped, not shown as garbage.
    expect(response.data).toMatchObject({
      content: 'éééé',
      truncatedLine: true,
      endLine: 1,
    });
  });

  it('hashes the whole file even when the content is capped', async () => {
    await writeFile(join(root, 'a.txt'), 'same head\nfirst tail\n');
    await writeFile(join(root, 'b.txt'), 'same head\nother tail\n');
    const tool = readFileTool({ root, maxBytes: 10 });
    const a = await callTool(tool, { path: 'a.txt' });
    const b = await callTool(tool, { path: 'b.txt' });
    expect(a.text.split('\n')[0]).toBe(b.text.split('\n')[0]);
    expect((a.data as { sha256: string }).sha256).not.toBe(
      (b.data as { sha256: string }).sha256,
    );
  });

  it('rejects a bad cap at construction', () => {
    expect(() => readFileTool({ root, maxBytes: 0 })).toThrow(
      /maxBytes must be a positive/,
    );
  });
});

const privileges = await privilegeMode();

describe.skipIf(privileges.mode === 'skip')(
  `read_file PERMISSION_DENIED${privileges.mode === 'skip' ? ` (skipped: ${privileges.reason})` : ''}`,
  () => {
    it('maps EACCES to PERMISSION_DENIED', async () => {
      await writeFile(join(root, 'secret.txt'), 'top secret\n');
      await chmod(root, 0o755);
      let response: {
        status: string;
        errorInfo?: { code: string; message: string };
      };
      if (privileges.mode === 'in-process') {
        await chmod(join(root, 'secret.txt'), 0o000);
        response = await callTool(readFileTool({ root }), {
          path: 'secret.txt',
        });
      } else {
        // Root bypasses file modes, and CI runs as root: the read happens in a child process
        // running as `nobody`, so the test means the same thing for every user.
        await chmod(join(root, 'secret.txt'), 0o600);
        response = JSON.parse(
          await runUnprivileged('./read-as-nobody.ts', [root, 'secret.txt']),
        ) as typeof response;
      }
      expect(response.status).toBe('error');
      expect(response.errorInfo?.code).toBe('PERMISSION_DENIED');
      expect(response.errorInfo?.message).toBe(
        'The operating system denied access to secret.txt',
      );
    });
  },
);
