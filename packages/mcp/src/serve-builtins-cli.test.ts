// The candor-mcp command as a real child process, driven by the official SDK client over stdio.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';

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
});
