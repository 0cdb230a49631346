import { ToolRegistry } from '@candor/registry';
import { type ConversationScript, LlmTestServer } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { type ChatModel } from '../chat-model.ts';
import { type RetryOptions } from '../retry-policy.ts';
import { type WireUnderTest } from './wire-conformance.case.ts';

// One server and registry per test, shut down after it, whichever suite file started them.
let server: LlmTestServer | undefined;
let close: (() => Promise<void>) | undefined;
let registry: ToolRegistry | undefined;

afterEach(async () => {
  registry?.shutdown();
  await close?.();
  server = undefined;
  close = undefined;
});

export async function setup(
  wire: WireUnderTest,
  script: (conversation: ConversationScript) => void,
  retry: RetryOptions = {},
): Promise<{ model: ChatModel; server: LlmTestServer; url: string }> {
  server = new LlmTestServer();
  server.conversation('test', script);
  const started = await server.start();
  close = started.close;
  return { model: wire.model(started.url, retry), server, url: started.url };
}

export function calculatorRegistry(
  options: ConstructorParameters<typeof ToolRegistry>[0] = {},
) {
  registry = new ToolRegistry(options);
  let runs = 0;
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers, or fails on request',
      input: z.object({
        a: z.number(),
        b: z.number(),
        mode: z.enum(['ok', 'big', 'fail', 'flaky']).default('ok'),
      }),
      run: ({ a, b, mode }) => {
        runs += 1;
        switch (mode) {
          case 'ok':
            return ToolResponse.success(String(a + b));
          case 'big':
            return ToolResponse.partial((a + b).toExponential(2), {
              reason: 'truncated',
            });
          case 'fail':
            return ToolResponse.error('EXECUTION_ERROR', 'Division by zero');
          case 'flaky':
            return ToolResponse.error('API_ERROR', 'upstream 502');
        }
      },
    }),
  );
  return { registry, runs: () => runs };
}

export const NO_RETRY_HINT =
  'Retrying the same call will not help: change the arguments or the approach.';
