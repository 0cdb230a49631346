import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { type ChatRequest } from './chat-model.ts';

// Registries made by a test are shut down after it, whichever file made them.
export const registries: ToolRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.shutdown();
});

export function registryWithCalculator(
  options: ConstructorParameters<typeof ToolRegistry>[0] = {},
) {
  const registry = new ToolRegistry(options);
  registries.push(registry);
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Evaluates a + b, or fails on request',
      input: z.object({
        a: z.number(),
        b: z.number(),
        mode: z.enum(['ok', 'big', 'fail', 'flaky']).default('ok'),
      }),
      run: ({ a, b, mode }) => {
        switch (mode) {
          case 'ok':
            return ToolResponse.success(String(a + b), { data: a + b });
          case 'big':
            return ToolResponse.partial((a + b).toExponential(2), {
              reason: 'truncated',
              data: { truncated: true },
            });
          case 'fail':
            return ToolResponse.error('EXECUTION_ERROR', 'Division by zero');
          case 'flaky':
            return ToolResponse.error('API_ERROR', 'upstream 502', {
              retryable: true,
            });
        }
      },
    }),
  );
  return registry;
}

export function toolMessages(request: ChatRequest | undefined) {
  return (request?.messages ?? []).flatMap((message) =>
    message.role === 'tool' ? message.results : [],
  );
}
