import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import {
  chmod,
  chown,
  link,
  mkdir,
  readdir,
  readFile,
  stat,
  writeFile,
} from 'node:fs/promises';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import {
  NOBODY,
  privilegeMode,
  runUnprivileged,
} from './__fixtures__/run-unprivileged.ts';
import { findExecutable } from './find-executable.ts';
import { httpFetchTool } from './http-fetch-tool.ts';
import { listDirTool } from './list-dir-tool.ts';
import { readFileTool } from './read-file-tool.ts';
import { searchTool } from './search-tool.ts';
import { shellTool } from './shell-tool.ts';
import { writeFileTool } from './write-file-tool.ts';

const privileges = await privilegeMode();
const rgAvailable =
  'path' in
  (await findExecutable('rg', process.env['PATH'] ?? '', process.cwd()));

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
  await writeFile(join(root, 'keep.txt'), 'original content\n');
  execFileSync('mkfifo', [join(root, 'pipe')]);
});

afterEach(async () => {
  await cleanup();
});

describe('write_file is atomic', () => {
  it('a write stopped by its deadline leaves the original byte for byte, and no temporary file', async () => {
    const controller = new AbortController();
    const big = 'x'.repeat(8 * 1024 * 1024);
    const pending = callTool(
      writeFileTool({ root }),
      { path: 'keep.txt', content: big },
      { signal: controller.signal },
    );
    controller.abort(new DOMException('deadline', 'TimeoutError'));
    const response = await pending;
    expect(codeOf(response)).toBe('TIMEOUT');
    expect(await readFile(join(root, 'keep.txt'), 'utf8')).toBe(
      'original content\n',
    );
    expect((await readdir(root)).sort()).toEqual(['keep.txt', 'pipe']);
  });

  it('a write failing with EFBIG (file-size limit) leaves the original byte for byte, and no temporary file', async () => {
    const original = Buffer.from(`${'original line\n'.repeat(100)}\u00e9\0`);
    await writeFile(join(root, 'keep.txt'), original);
    // 16 blocks (8 KiB in dash, 16 KiB in bash) is far below the 1 MiB written below.
    const fixture = fileURLToPath(
      new URL('__fixtures__/write-limited.ts', import.meta.url),
    );
    const { stdout } = await promisify(execFile)('/bin/sh', [
      '-c',
      `trap '' XFSZ; ulimit -f 16; exec "$0" "$@"`,
      process.execPath,
      '--import',
      import.meta.resolve('tsx/esm'),
      '--conditions=@candor/source',
      fixture,
      root,
      'keep.txt',
      String(1024 * 1024),
    ]);
    const response = JSON.parse(stdout) as {
      status: string;
      errorInfo?: { code: string; message: string };
    };
    expect(response.status).toBe('error');
    expect(response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      message:
        'keep.txt was not written: the content is over the file-size limit of the process (EFBIG)',
    });
    expect(await readFile(join(root, 'keep.txt'))).toEqual(original);
    expect((await readdir(root)).sort()).toEqual(['keep.txt', 'pipe']);
  });

  it('keeps the mode of the file it replaces', async () => {
    execFileSync('chmod', ['640', join(root, 'keep.txt')]);
    const response = await callTool(writeFileTool({ root }), {
      path: 'keep.txt',
      content: 'new\n',
    });
    expect(response.status).toBe('success');
    const mode = execFileSync('stat', ['-c', '%a', join(root, 'keep.txt')], {
      encoding: 'utf8',
    }).trim();
    expect(mode).toBe('640');
    expect(await readFile(join(root, 'keep.txt'), 'utf8')).toBe('new\n');
  });
});

describe('write_file replaces the file', () => {
  it('a hard link to the old file keeps the old content', async () => {
    await link(join(root, 'keep.txt'), join(root, 'hard-link.txt'));
    const response = await callTool(writeFileTool({ root }), {
      path: 'keep.txt',
      content: 'new\n',
    });
    expect(response.status).toBe('success');
    expect(await readFile(join(root, 'keep.txt'), 'utf8')).toBe('new\n');
    expect(await readFile(join(root, 'hard-link.txt'), 'utf8')).toBe(
      'original content\n',
    );
  });

  it.skipIf(process.getuid?.() !== 0)(
    `keeps the owner when the agent runs as root${process.getuid?.() === 0 ? '' : ' (skipped: not root)'}`,
    async () => {
      await chown(join(root, 'keep.txt'), NOBODY, NOBODY);
      const response = await callTool(writeFileTool({ root }), {
        path: 'keep.txt',
        content: 'new\n',
      });
      expect(response.status).toBe('success');
      const info = await stat(join(root, 'keep.txt'));
      expect([info.uid, info.gid]).toEqual([NOBODY, NOBODY]);
    },
  );
});

describe('the OS denying access is PERMISSION_DENIED', () => {
  const reason =
    privileges.mode === 'skip' ? ` (skipped: ${privileges.reason})` : '';
  it.skipIf(privileges.mode === 'skip').each([
    ['write_file', { path: 'locked/new.txt', content: 'x' }],
    ['list_dir', { path: 'locked' }],
  ] as const)(`%s${reason}`, async (tool, args) => {
    await mkdir(join(root, 'locked'));
    await chmod(root, 0o755);
    // Root bypasses file modes: as root the call runs in a child as `nobody`.
    await chmod(
      join(root, 'locked'),
      privileges.mode === 'child' ? 0o700 : 0o000,
    );
    const response = (
      privileges.mode === 'in-process'
        ? await callTool(
            tool === 'write_file'
              ? writeFileTool({ root })
              : listDirTool({ root }),
            args,
          )
        : JSON.parse(
            await runUnprivileged('./call-as-nobody.ts', [
              tool,
              root,
              JSON.stringify(args),
            ]),
          )
    ) as { errorInfo?: { code: string } };
    await chmod(join(root, 'locked'), 0o755);
    expect(response.errorInfo?.code).toBe('PERMISSION_DENIED');
  });
});

describe('non-regular files are refused up front, never opened to block', () => {
  it.each([
    [
      'write_file',
      () => writeFileTool({ root }),
      { path: 'pipe', content: 'x' },
    ],
    ['read_file', () => readFileTool({ root }), { path: 'pipe' }],
    [
      'search (js)',
      () => searchTool({ root, engine: 'js' }),
      { pattern: 'x', path: 'pipe' },
    ],
    [
      'search (auto)',
      () => searchTool({ root }),
      { pattern: 'x', path: 'pipe' },
    ],
  ] as const)('%s on a FIFO → INVALID_PARAM', async (_name, tool, args) => {
    const response = await callTool(tool(), args);
    expect(codeOf(response)).toBe('INVALID_PARAM');
    expect(response.text).toMatch(/not a regular file/);
  });

  for (const { engine, skip } of [
    { engine: 'js' as const, skip: false },
    { engine: 'rg' as const, skip: !rgAvailable },
  ]) {
    it.skipIf(skip)(
      `a search walk (${engine}${skip ? '; skipped: rg is not on PATH' : ''}) skips the FIFO and still answers`,
      async () => {
        const response = await callTool(searchTool({ root, engine }), {
          pattern: 'original',
        });
        expect(response.status).toBe('success');
        expect((response.data as { count: number }).count).toBe(1);
      },
    );
  }
});

describe("the model's bad arguments are INVALID_PARAM, not tool failures", () => {
  const longName = 'n'.repeat(300);
  const longPath = Array.from({ length: 30 }, () => 'd'.repeat(200)).join('/');

  it.each([
    [
      'read_file, a name over 255 bytes',
      () => readFileTool({ root }),
      { path: longName },
    ],
    [
      'read_file, a path over 4095 bytes',
      () => readFileTool({ root }),
      { path: longPath },
    ],
    [
      'write_file, a name over 255 bytes',
      () => writeFileTool({ root }),
      { path: longName, content: 'x' },
    ],
    [
      'list_dir, a path over 4095 bytes',
      () => listDirTool({ root }),
      { path: longPath },
    ],
    [
      'search, a name over 255 bytes',
      () => searchTool({ root }),
      { pattern: 'x', path: longName },
    ],
    [
      'shell, a NUL byte in an argument',
      () => shellTool({ root }),
      { command: ['echo', 'a\0b'] },
    ],
    [
      'http_fetch, credentials in the URL',
      () => httpFetchTool(),
      { url: 'http://user:pw@127.0.0.1:9/' },
    ],
    [
      'http_fetch, a header name with a space',
      () => httpFetchTool(),
      { url: 'http://127.0.0.1:9/', headers: { 'X Bad': 'v' } },
    ],
    [
      'http_fetch, CRLF in a header value',
      () => httpFetchTool(),
      { url: 'http://127.0.0.1:9/', headers: { 'X-Ok': 'v\r\nInjected: 1' } },
    ],
  ] as const)('%s', async (_name, tool, args) => {
    const response = await callTool(tool(), args);
    expect(codeOf(response)).toBe('INVALID_PARAM');
    // No host path outside the workspace in the message.
    expect(response.text).not.toContain(root);
    expect(response.text).not.toContain('pw@');
  });
});

describe('http_fetch messages name the cause', () => {
  it('a refused connection names host, port and "connection refused"', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done));
    const response = await callTool(
      httpFetchTool({ allowHosts: ['127.0.0.1'] }),
      {
        url: `http://127.0.0.1:${port}/x?token=s3cret`,
      },
    );
    expect(codeOf(response)).toBe('NETWORK_ERROR');
    expect(response.text).toContain(`Connection refused by 127.0.0.1:${port}`);
    expect(response.text).not.toContain('s3cret');
  });

  it('a redirect loop says so', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(302, { location: '/again' }).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    try {
      const response = await callTool(
        httpFetchTool({ allowHosts: ['127.0.0.1'] }),
        {
          url: `http://127.0.0.1:${port}/start`,
        },
      );
      expect(codeOf(response)).toBe('NETWORK_ERROR');
      expect(response.text).toMatch(
        new RegExp(
          `GET http://127\\.0\\.0\\.1:${port}/start failed: Too many redirects`,
        ),
      );
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
