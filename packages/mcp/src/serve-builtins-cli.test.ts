// The candor-mcp command as a real child process, driven by the official SDK client over stdio.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { rawInitialize } from './__fixtures__/serve-over-http.ts';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const node = ['--import', 'tsx', '--conditions=@candor/source', cli] as const;

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
});
