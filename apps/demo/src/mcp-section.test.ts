// pnpm demo:mcp, and an Agent on tools imported over both wires: stdio (the candor-mcp command
// as a child process) and Streamable HTTP on 127.0.0.1.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from '@candor/core';
import { lastToolResult, scriptedModel } from '@candor/core/testing';
import {
  importMcpTools,
  type McpServerSource,
  serveRegistry,
} from '@candor/mcp';
import { ToolRegistry } from '@candor/registry';
import { describe, expect, it } from 'vitest';
import { mcpSection, servedRegistry } from './mcp-section.ts';
import { Output } from './output.ts';

const mcpPackage = dirname(
  fileURLToPath(import.meta.resolve('@candor/mcp/package.json')),
);

describe('pnpm demo:mcp', () => {
  it('shows each outcome over MCP, the served breaker, and an agent run', async () => {
    const lines: Record<string, unknown>[] = [];
    await mcpSection(
      new Output({
        json: true,
        colour: false,
        write: (line) =>
          lines.push(JSON.parse(line) as Record<string, unknown>),
      }),
    );
    const responses = lines.filter((line) => line['type'] === 'response');
    expect(responses.map((line) => line['code'] ?? line['outcome'])).toEqual([
      'success',
      'partial',
      'INVALID_FORMAT',
      'INVALID_PARAM',
      'NETWORK_ERROR',
      'NETWORK_ERROR',
      'CIRCUIT_OPEN',
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: 'done',
      stopReason: 'completed',
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'model-said', text: '17 × 3 = 51.' }),
    );
  });
});

async function agentOver(source: McpServerSource) {
  const registry = new ToolRegistry();
  const imported = await importMcpTools(source, registry, { reconnect: false });
  try {
    const agent = new Agent({
      registry,
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'calculator', arguments: { expression: '2 ** 40 * 1000' } },
          ],
        },
        {
          toolCalls: [
            { name: 'calculator', arguments: { expression: '1 / 0' } },
          ],
        },
        (request) => ({ text: `last: ${lastToolResult(request) ?? '?'}` }),
      ]),
    });
    return await agent.run('compute');
  } finally {
    await imported.close();
    registry.shutdown();
  }
}

describe.each([
  {
    wire: 'stdio (candor-mcp child process)',
    start: () =>
      Promise.resolve({
        source: {
          stdio: {
            command: process.execPath,
            args: [
              '--import',
              'tsx',
              '--conditions=@candor/source',
              join(mcpPackage, 'src/cli.ts'),
            ],
          },
        } satisfies McpServerSource,
        stop: () => Promise.resolve(),
      }),
  },
  {
    wire: 'Streamable HTTP on 127.0.0.1',
    start: async () => {
      const served = servedRegistry();
      const service = await serveRegistry(served, {
        transport: 'http',
        bearerToken: 'demo-token',
      });
      const url = service.url;
      if (url === undefined) throw new Error('no url');
      return {
        source: {
          http: { url, headers: { authorization: 'Bearer demo-token' } },
        } satisfies McpServerSource,
        stop: async () => {
          await service.close();
          served.shutdown();
        },
      };
    },
  },
])('an Agent on MCP tools over $wire', ({ start }) => {
  it('sees partial and error outcomes as the local registry gives them', async () => {
    const { source, stop } = await start();
    try {
      const result = await agentOver(source);
      expect(result.stopReason).toBe('completed');
      const calls = result.steps.flatMap((step) => step.toolCalls);
      expect(calls.map((call) => call.outcome)).toEqual(['partial', 'error']);
      expect(calls[0]?.sentToModel.content).toMatch(
        /^\[INCOMPLETE RESULT: rounded\]/,
      );
      const second = calls[1]?.response;
      expect(second?.status === 'error' && second.errorInfo.code).toBe(
        'EXECUTION_ERROR',
      );
      expect(calls[1]?.sentToModel.isError).toBe(true);
    } finally {
      await stop();
    }
  }, 30_000);
});
