import { throwingLogger, throwingProxy } from '@candor/hostile-fixtures';
import { ToolRegistry } from '@candor/registry';
import { ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { Agent } from './agent.ts';
import { lastToolResult, scriptedModel } from './scripted-model.ts';

describe('Agent with a logger that throws', () => {
  it('still runs to the answer, tool results included', async () => {
    const { logger, attempts } = throwingLogger();
    const registry = new ToolRegistry({ logger });
    try {
      registry.register(() => 'fourteen', { name: 'calc' });
      registry.register(() => ToolResponse.error('API_ERROR', 'down'), {
        name: 'down',
      });
      const model = scriptedModel([
        {
          toolCalls: [
            { name: 'calc', arguments: {} },
            { name: 'down', arguments: {} },
          ],
        },
        (request) => ({ text: `It is ${lastToolResult(request) ?? '?'}.` }),
      ]);
      const agent = new Agent({ model, registry, logger });
      const result = await agent.run('What is 2 + 12?');
      expect(result.stopReason).toBe('completed');
      expect(result.steps[0]?.toolCalls.map((call) => call.outcome)).toEqual([
        'success',
        'error',
      ]);
      expect(attempts()).toBeGreaterThan(0);
    } finally {
      registry.shutdown();
    }
  });

  it('is built and streams when child() itself throws', async () => {
    const { logger } = throwingProxy();
    const registry = new ToolRegistry({ logger });
    try {
      const agent = new Agent({
        model: scriptedModel([{ text: 'Hello.' }]),
        registry,
        logger,
      });
      const types: string[] = [];
      for await (const event of agent.stream('Hi')) types.push(event.type);
      expect(types.at(-1)).toBe('done');
    } finally {
      registry.shutdown();
    }
  });
});
