// ToolRegistry.resetBreaker: one tool's open breaker closes at once, the others stay as they are.
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

const breaker = { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 60_000 };

function flaky(name: string, answers: ToolResponse[]) {
  const run = vi.fn(
    (): ToolResponse => answers.shift() ?? ToolResponse.success('ok'),
  );
  return {
    run,
    tool: defineTool({
      name,
      description: 'Fails, then works',
      input: z.object({}),
      run,
    }),
  };
}

const fail = (): ToolResponse =>
  ToolResponse.error('API_ERROR', 'upstream 502');

function stateOf(registry: ToolRegistry, name: string): string | undefined {
  return registry.health().find((snapshot) => snapshot.name === name)?.state;
}

const registries: ToolRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.shutdown();
});

function make(options: ConstructorParameters<typeof ToolRegistry>[0]) {
  const registry = new ToolRegistry(options);
  registries.push(registry);
  return registry;
}

describe('ToolRegistry.resetBreaker', () => {
  it("closes that tool's open breaker, so the next call runs; other breakers stay open", async () => {
    const registry = make({ breaker });
    const a = flaky('a', [fail(), fail()]);
    const b = flaky('b', [fail(), fail()]);
    registry.register(a.tool).register(b.tool);
    for (const name of ['a', 'a', 'b', 'b']) await registry.call(name, {});
    expect(stateOf(registry, 'a')).toBe('open');
    const refused = await registry.call('a', {});
    expect(refused.status === 'error' && refused.errorInfo.code).toBe(
      'CIRCUIT_OPEN',
    );
    expect(registry.resetBreaker('a')).toBe(true);
    expect(stateOf(registry, 'a')).toBe('closed');
    expect((await registry.call('a', {})).status).toBe('success');
    expect(a.run).toHaveBeenCalledTimes(3);
    expect(stateOf(registry, 'b')).toBe('open');
    expect(b.run).toHaveBeenCalledTimes(2);
  });

  it('is false without a breaker: never called, unknown, or breakers off', async () => {
    const registry = make({ breaker });
    registry.register(flaky('a', []).tool);
    expect(registry.resetBreaker('a')).toBe(false);
    expect(registry.resetBreaker('nope')).toBe(false);
    const off = make({ breaker: false });
    off.register(flaky('a', [fail(), fail()]).tool);
    await off.call('a', {});
    expect(off.resetBreaker('a')).toBe(false);
  });

  it('names the argument on bad input', () => {
    const registry = make({});
    expect(() => registry.resetBreaker(42 as unknown as string)).toThrow(
      new TypeError(
        'ToolRegistry.resetBreaker: name must be a string, got number',
      ),
    );
  });
});
