// A registry with one tool per outcome the round trip must carry: success, partial, each error
// class, a denial, an open circuit, a hang (timeout and cancellation), progress reports.
import { allToolErrorCodes, isToolErrorCode } from '@candor/errors';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

export function outcomeRegistry(): ToolRegistry {
  const registry = new ToolRegistry({
    approve: ({ toolName }) =>
      toolName === 'guarded'
        ? { approved: false, reason: 'the user said no' }
        : true,
    breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 },
  });
  registry.register(
    defineTool({
      name: 'add',
      description: 'Adds a and b',
      input: z.object({ a: z.number(), b: z.number() }),
      idempotent: true,
      run: ({ a, b }) =>
        ToolResponse.success(String(a + b), { data: { sum: a + b } }),
    }),
  );
  registry.register(
    defineTool({
      name: 'rounded',
      description: 'A partial result',
      input: z.object({}),
      run: () =>
        ToolResponse.partial('about 3', { reason: 'rounded', data: 3.14159 }),
    }),
  );
  registry.register(
    defineTool({
      name: 'fail',
      description: 'Fails with the code given',
      input: z.object({
        code: z.enum(allToolErrorCodes as [string, ...string[]]),
      }),
      run: ({ code }) =>
        isToolErrorCode(code)
          ? ToolResponse.error(code, `failed with ${code}`, {
              ...(code === 'RATE_LIMIT' ? { retryAfterMs: 2000 } : {}),
              data: { attempt: 1 },
            })
          : ToolResponse.error('INTERNAL_ERROR', 'unreachable'),
    }),
    { breaker: false },
  );
  registry.register(
    defineTool({
      name: 'guarded',
      description: 'Always refused by the approval gate',
      input: z.object({}),
      run: () => ToolResponse.success('ran'),
    }),
  );
  registry.register(
    defineTool({
      name: 'flaky',
      description:
        'Fails with NETWORK_ERROR; its breaker opens after two calls',
      input: z.object({}),
      run: () => ToolResponse.error('NETWORK_ERROR', 'the upstream is down'),
    }),
  );
  registry.register(
    defineTool({
      name: 'hang',
      description: 'Never answers until it is aborted',
      input: z.object({}),
      timeoutMs: 60_000,
      run: (_input, { signal }) =>
        new Promise<ToolResponse>((resolve) => {
          signal.addEventListener('abort', () => {
            resolve(ToolResponse.success('stopped'));
          });
        }),
    }),
  );
  registry.register(
    defineTool({
      name: 'steps',
      description:
        'Reports progress (once backwards, which MCP forbids), then succeeds',
      input: z.object({}),
      run: (_input, { reportProgress }) => {
        reportProgress?.({ progress: 1, total: 3, message: 'one' });
        reportProgress?.({ progress: 2, total: 3, message: 'two' });
        reportProgress?.({ progress: 1, total: 3, message: 'backwards' });
        reportProgress?.({ progress: 3, total: 3, message: 'three' });
        return ToolResponse.success('done');
      },
    }),
  );
  return registry;
}
