// The candor-mcp command as a real child process, driven by the official SDK client over stdio.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { rawInitialize } from './__fixtures__/serve-over-http.ts';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const node = ['--import', 'tsx', '--conditions=@candor/source', cli] as const;

const children: ReturnType<typeof spawn>[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    }
  }
});

/** Starts `candor-mcp` and resolves once its stderr says `pattern`, with what it said. */
async function start(
  args: readonly string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ match: RegExpExecArray; stderr: () => string }> {
  const child = spawn(process.execPath, [...node, ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
    env,
  });
  children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const found = pattern.exec(stderr);
      if (found !== null) resolve(found);
    });
    child.once('exit', (code) => {
      reject(new Error(`exited ${String(code)}: ${stderr}`));
    });
  });
  return { match, stderr: () => stderr };
}

async function startHttp(
  args: readonly string[],
): Promise<{ url: URL; stderr: () => string }> {
  const { match, stderr } = await start(
    ['--http', '--port', '0', ...args],
    /serving (http\S+)/,
  );
  return { url: new URL(match[1] ?? ''), stderr };
}

async function connectHttp(url: URL): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('candor-mcp', () => {
  it('serves the builtins over stdio, confined to the workspace', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'candor-mcp-'));
    writeFileSync(join(workspace, 'hello.txt'), 'hello from the workspace\n');
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...node, '--workspace', workspace],
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['calculator', 'read_file', 'shell']),
      );
      const sum = await client.callTool({
        name: 'calculator',
        arguments: { expression: '2 + 3 * 4' },
      });
      expect(sum.isError).toBe(false);
      expect(sum.content).toEqual([{ type: 'text', text: '14' }]);
      const read = await client.callTool({
        name: 'read_file',
        arguments: { path: 'hello.txt' },
      });
      expect(JSON.stringify(read.content)).toContain(
        'hello from the workspace',
      );
      const outside = await client.callTool({
        name: 'read_file',
        arguments: { path: '../../etc/passwd' },
      });
      expect(outside.isError).toBe(true);
      expect(outside.structuredContent).toMatchObject({
        code: 'ACCESS_DENIED',
      });
    } finally {
      await client.close();
    }
    // A tsx child process starts slowly on a loaded machine; nothing here waits on a clock.
  }, 30_000);

  it('refuses unknown options with a usage message and exit code 2', () => {
    const result = spawnSync(process.execPath, [...node, '--bogus'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Usage: candor-mcp');
    expect(result.stdout).toBe('');
  }, 30_000);

  it('refuses an empty --token (an unset variable) with exit code 2 instead of serving unguarded', () => {
    const result = spawnSync(
      process.execPath,
      [...node, '--http', '--token', ''],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--token is empty');
  }, 30_000);

  it('serves HTTP on 127.0.0.1 with --http, and --token guards it', async () => {
    const child = spawn(
      process.execPath,
      [...node, '--http', '--port', '0', '--token', 'T0ken'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8');
      const served = new Promise<URL>((resolve, reject) => {
        child.stderr.on('data', (chunk: string) => {
          stderr += chunk;
          const match = /serving (\S+)/.exec(stderr);
          if (match?.[1] !== undefined) resolve(new URL(match[1]));
        });
        child.once('exit', (code) => {
          reject(new Error(`exited ${String(code)}: ${stderr}`));
        });
      });
      const url = await served;
      expect(url.hostname).toBe('127.0.0.1');
      const initialize = (authorization?: string): Promise<Response> =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization === undefined ? {} : { authorization }),
          },
          body: rawInitialize,
        });
      expect((await initialize()).status).toBe(401);
      expect((await initialize('Bearer wrong')).status).toBe(401);
      expect((await initialize('Bearer T0ken')).status).toBe(200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill();
        await exited;
      }
    }
  }, 30_000);

  it('refuses an empty CANDOR_MCP_TOKEN with exit code 2, like an empty --token', () => {
    const result = spawnSync(process.execPath, [...node, '--http'], {
      encoding: 'utf8',
      env: { ...process.env, CANDOR_MCP_TOKEN: '' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('CANDOR_MCP_TOKEN is set but empty');
  }, 30_000);

  it('refuses a workspace that does not exist, or is a file, with exit code 2', () => {
    const missing = join(tmpdir(), 'candor-mcp-typo-does-not-exist');
    const gone = spawnSync(
      process.execPath,
      [...node, '--workspace', missing],
      {
        encoding: 'utf8',
      },
    );
    expect(gone.status).toBe(2);
    expect(gone.stderr).toContain(`--workspace ${missing} does not exist`);
    const file = join(mkdtempSync(join(tmpdir(), 'candor-mcp-')), 'file.txt');
    writeFileSync(file, 'not a folder');
    const notDir = spawnSync(process.execPath, [...node, '--workspace', file], {
      encoding: 'utf8',
    });
    expect(notDir.status).toBe(2);
    expect(notDir.stderr).toContain('is not a folder');
  }, 30_000);

  it('says on stderr, once, that it serves on stdio and which workspace', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'candor-mcp-'));
    const { stderr } = await start(
      ['--workspace', workspace],
      /serving on stdio, workspace (\S+)\n/,
    );
    expect(stderr()).toBe(
      `candor-mcp: serving on stdio, workspace ${workspace}\n`,
    );
  }, 30_000);

  it('over --http without a token serves only the read-only tools: shell runs nothing', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'candor-mcp-'));
    const { url, stderr } = await startHttp(['--workspace', workspace]);
    expect(stderr()).toContain('only read-only tools are served');
    const client = await connectHttp(url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'calculator',
        'list_dir',
        'read_file',
        'search',
      ]);
      expect(
        tools.find((tool) => tool.name === 'read_file')?.annotations,
      ).toEqual({
        title: 'Read a file',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      const shell = await client.callTool({
        name: 'shell',
        arguments: { command: 'echo pwned > pwned.txt' },
      });
      expect(shell.isError).toBe(true);
      expect(shell.structuredContent).toMatchObject({ code: 'ACCESS_DENIED' });
      const write = await client.callTool({
        name: 'write_file',
        arguments: { path: 'pwned.txt', content: 'pwned' },
      });
      expect(write.structuredContent).toMatchObject({ code: 'ACCESS_DENIED' });
      expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('serves shell and write_file without a token only with --allow-shell-and-writes-without-token', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'candor-mcp-'));
    const { url } = await startHttp([
      '--workspace',
      workspace,
      '--allow-shell-and-writes-without-token',
    ]);
    const client = await connectHttp(url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['shell', 'write_file', 'http_fetch']),
      );
      const write = await client.callTool({
        name: 'write_file',
        arguments: { path: 'made.txt', content: 'made' },
      });
      expect(write.isError).toBe(false);
      expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('answers 403 to a DNS-rebinding request (foreign Host and Origin), and takes --allow-host', async () => {
    const { url } = await startHttp(['--allow-host', 'mcp.lan']);
    const post = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(rawInitialize);
      });
    expect(
      await post({
        host: `evil.example:${url.port}`,
        origin: `http://evil.example:${url.port}`,
      }),
    ).toBe(403);
    expect(await post({ host: `mcp.lan:${url.port}` })).toBe(200);
    expect(await post({})).toBe(200);
  }, 30_000);

  it('passes --fetch-allow to http_fetch: a loopback URL is refused without it and reached with it', async () => {
    const target = createHttpServer((_request, response) => {
      response.end('inside');
    });
    await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
    const { port } = target.address() as AddressInfo;
    try {
      const fetchWith = async (args: string[]): Promise<unknown> => {
        const client = new Client({ name: 'test', version: '1' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [...node, ...args],
            stderr: 'ignore',
          }),
        );
        try {
          const result = await client.callTool({
            name: 'http_fetch',
            arguments: { url: `http://127.0.0.1:${port}/` },
          });
          return result.structuredContent;
        } finally {
          await client.close();
        }
      };
      expect(await fetchWith([])).toMatchObject({ code: 'ACCESS_DENIED' });
      expect(
        await fetchWith(['--fetch-allow', `127.0.0.1:${port}`]),
      ).toMatchObject({ status: 'success', data: { body: 'inside' } });
    } finally {
      await new Promise((done) => target.close(done));
    }
  }, 30_000);

  it('refuses a bad --fetch-allow entry with exit code 2', () => {
    const result = spawnSync(
      process.execPath,
      [...node, '--fetch-allow', 'http://x/'],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('allowHosts entries');
  }, 30_000);
});
