import { randomUUID } from 'node:crypto';
import { calculatorTool } from '@candor/builtins';
import { Agent } from '@candor/core';
import { lastToolResult, scriptedModel } from '@candor/core/testing';
import { importMcpTools, serveRegistry } from '@candor/mcp';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { type Output } from './output.ts';

/** The registry the demo serves: the calculator, and a weather tool whose upstream is down. */
export function servedRegistry(): ToolRegistry {
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
  });
  registry.register(calculatorTool());
  registry.register(
    defineTool({
      name: 'weather',
      description: 'The weather in a city (its upstream is down in this demo)',
      input: z.object({ city: z.string().min(1) }),
      run: ({ city }) =>
        ToolResponse.error(
          'NETWORK_ERROR',
          `The weather service did not answer for ${city}.`,
        ),
    }),
  );
  return registry;
}

/**
 * Candor over MCP, offline: a registry served on Streamable HTTP (127.0.0.1), its tools imported
 * into a second registry through the official SDK client, then an agent on the imported tools.
 */
export async function mcpSection(output: Output): Promise<void> {
  const served = servedRegistry();
  // Without a token, HTTP serves only tools declared read-only: this one is guarded.
  const token = randomUUID();
  const service = await serveRegistry(served, {
    transport: 'http',
    bearerToken: token,
  });
  const local = new ToolRegistry();
  const url = service.url;
  if (url === undefined) throw new Error('the HTTP service has no URL');
  const headers = { authorization: `Bearer ${token}` };
  const imported = await importMcpTools({ http: { url, headers } }, local, {
    prefix: 'remote_',
  });
  try {
    output.section('A registry served over MCP (Streamable HTTP on 127.0.0.1)');
    output.note(
      `serving ${url.origin}/mcp; imported: ${imported.tools.join(', ')}`,
    );
    const calls: [string, string, unknown][] = [
      ['2 + 3 * 4', 'remote_calculator', { expression: '2 + 3 * 4' }],
      ['2 ** 40 * 1000', 'remote_calculator', { expression: '2 ** 40 * 1000' }],
      ['2 + abc', 'remote_calculator', { expression: '2 + abc' }],
      ['no expression (rejected locally, never sent)', 'remote_calculator', {}],
      ['weather, 1st call', 'remote_weather', { city: 'Oslo' }],
      ['weather, 2nd call', 'remote_weather', { city: 'Oslo' }],
      [
        'weather, 3rd call (served breaker open)',
        'remote_weather',
        { city: 'Oslo' },
      ],
    ];
    for (const [label, tool, args] of calls) {
      output.response(label, await local.call(tool, args));
    }

    output.section('An agent on the imported tools (scripted model)');
    const agent = new Agent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'remote_calculator', arguments: { expression: '17 × 3' } },
          ],
        },
        (request) =>
          lastToolResult(request)?.startsWith('[INVALID_FORMAT]') === true
            ? {
                text: 'My input was malformed; correcting it.',
                toolCalls: [
                  {
                    name: 'remote_calculator',
                    arguments: { expression: '17 * 3' },
                  },
                ],
              }
            : { text: 'Done.' },
        (request) => ({ text: `17 × 3 = ${lastToolResult(request) ?? '?'}.` }),
      ]),
      registry: local,
    });
    const result = await agent.run('What is 17 × 3?');
    for (const step of result.steps) {
      for (const call of step.toolCalls) {
        output.modelReceived(
          step.index,
          call.call.name,
          call.sentToModel.content,
          call.outcome,
        );
      }
      output.modelSaid(step.index, step.text);
    }
    output.done(result.stopReason);
  } finally {
    await imported.close();
    await service.close();
    local.shutdown();
    served.shutdown();
  }
}
