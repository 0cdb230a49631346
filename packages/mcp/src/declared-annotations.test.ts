// A tool's own `annotations` (declared in defineTool) reach an MCP client, and the token-less
// HTTP rule reads the same resolved annotations: a tool declared read-only is served without a
// token, one that declares nothing is refused, and `toolAnnotations` still overrides by name.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerBuiltins } from '@candor/builtins';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveOverHttp } from './__fixtures__/serve-over-http.ts';
import { type HttpServeOptions } from './serve-options.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function userRegistry(): { registry: ToolRegistry; marker: string } {
  const marker = join(mkdtempSync(join(tmpdir(), 'candor-mcp-')), 'ran.txt');
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'lookup',
      description: 'Looks a word up',
      input: z.object({ word: z.string() }),
      idempotent: true,
      annotations: { title: 'Look up', readOnlyHint: true },
      run: ({ word }) => ToolResponse.success(`found ${word}`),
    }),
  );
  registry.register(
    defineTool({
      name: 'mark',
      description: 'Writes the marker file',
      input: z.object({}),
      run: () => {
        writeFileSync(marker, 'ran');
        return ToolResponse.success('marked');
      },
    }),
  );
  return { registry, marker };
}

async function connect(
  registry: ToolRegistry,
  options: Omit<HttpServeOptions, 'transport'> = {},
): Promise<Client> {
  // The fixture serves every tool unless told otherwise: here the token-less rule is the point.
  const { url } = await serveOverHttp(
    registry,
    { allowWritesWithoutToken: false, ...options },
    cleanups,
  );
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url));
  cleanups.push(() => client.close());
  return client;
}

describe("serveRegistry and a tool's own annotations", () => {
  it('lists a user tool with its declared annotations, idempotentHint from its idempotent', async () => {
    const { registry } = userRegistry();
    const client = await connect(registry, { allowWritesWithoutToken: true });
    const { tools } = await client.listTools();
    const lookup = tools.find((tool) => tool.name === 'lookup');
    expect(lookup?.annotations).toEqual({
      title: 'Look up',
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(tools.find((tool) => tool.name === 'mark')?.annotations).toEqual({
      idempotentHint: false,
    });
  });

  it('without a token, serves the tool declared read-only and refuses the one that declares nothing', async () => {
    const { registry, marker } = userRegistry();
    const client = await connect(registry);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'lookup',
    ]);
    const served = await client.callTool({
      name: 'lookup',
      arguments: { word: 'candor' },
    });
    expect(served.isError).not.toBe(true);
    expect(JSON.stringify(served.content)).toContain('found candor');
    const refused = await client.callTool({ name: 'mark', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('ACCESS_DENIED');
    expect(existsSync(marker)).toBe(false);
  });

  it('lets toolAnnotations override a declared hint by name, for listing and serving alike', async () => {
    const { registry } = userRegistry();
    const client = await connect(registry, {
      toolAnnotations: {
        lookup: { readOnlyHint: false },
        mark: { readOnlyHint: true },
      },
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['mark']);
    expect(tools[0]?.annotations).toEqual({
      idempotentHint: false,
      readOnlyHint: true,
    });
  });

  it('serves the builtins with their own annotations, no toolAnnotations needed', async () => {
    const registry = new ToolRegistry();
    registerBuiltins(registry, {
      root: mkdtempSync(join(tmpdir(), 'candor-mcp-')),
    });
    const client = await connect(registry);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(
      ['calculator', 'list_dir', 'read_file', 'search'].sort(),
    );
  });
});
