import {
  everyTrapThrows,
  revokedProxy,
  throwingLogger,
  throwingProxy,
} from '@candor/hostile-fixtures';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';
import { type ToolRegistryOptions } from './registry-types.ts';

// call() is a plain function now (a synchronous result is finished without an async frame), so
// "never throws, never rejects" is no longer given by `async`: each of these would be a throw out
// of call() or a rejection if a path were left unguarded.

const registries: ToolRegistry[] = [];

function registry(options: ToolRegistryOptions = {}): ToolRegistry {
  const made = new ToolRegistry(options);
  registries.push(made);
  return made;
}

afterEach(() => {
  for (const each of registries.splice(0)) each.shutdown();
});

function tool(name: string, run: () => unknown, timeoutMs?: number) {
  return defineTool({
    name,
    description: 'A hostile tool',
    input: z.looseObject({}),
    run: run as () => ToolResponse,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/** Calls, asserting no synchronous throw, and that the promise resolves to a wire-valid response. */
async function callSafely(
  reg: ToolRegistry,
  name: unknown,
  args?: unknown,
  options?: unknown,
): Promise<ToolResponse> {
  let pending: Promise<ToolResponse> = Promise.reject(new Error('not called'));
  pending.catch(() => undefined);
  expect(() => {
    pending = reg.call(name as string, args, options as never);
  }).not.toThrow();
  expect(pending).toBeInstanceOf(Promise);
  const response = await pending;
  const parsed = ToolResponse.safeParse(JSON.parse(JSON.stringify(response)));
  expect(parsed.success).toBe(true);
  return response;
}

function codeOf(response: ToolResponse): string | undefined {
  return response.status === 'error' ? response.errorInfo.code : undefined;
}

function deep(depth: number): unknown {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i += 1) value = { next: value };
  return value;
}

describe('call() never throws synchronously and never rejects', () => {
  it('a sync tool that throws, and one whose thrown value is a Proxy whose every trap throws', async () => {
    const reg = registry();
    reg.register(
      tool('throws', () => {
        throw new Error('boom');
      }),
    );
    reg.register(
      tool('throws-proxy', () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the hostile value is the point
        throw everyTrapThrows().proxy;
      }),
    );
    expect((await callSafely(reg, 'throws', {})).status).toBe('error');
    expect((await callSafely(reg, 'throws-proxy', {})).status).toBe('error');
  });

  it('results that are Proxies, revoked proxies, or thenables whose then throws or is a throwing getter', async () => {
    const reg = registry();
    const results: Record<string, () => unknown> = {
      proxy: () => everyTrapThrows().proxy,
      revoked: () => revokedProxy(),
      thenThrows: () => ({
        then() {
          throw new Error('then threw');
        },
      }),
      thenGetter: () => ({
        get then(): never {
          throw new Error('then getter');
        },
      }),
      resolvesProxy: () => Promise.resolve(everyTrapThrows().proxy),
      resolvesRevoked: () => Promise.resolve(revokedProxy()),
      thenableProxy: () => ({
        then(resolve: (value: unknown) => void) {
          resolve(everyTrapThrows().proxy);
        },
      }),
      deepData: () => ({
        status: 'success',
        text: 'deep',
        data: deep(20_000),
        stats: { timeMs: 0 },
      }),
    };
    for (const [name, run] of Object.entries(results)) {
      reg.register(tool(name, run));
    }
    for (const name of Object.keys(results)) {
      const response = await callSafely(reg, name, {});
      expect(['error', 'success']).toContain(response.status);
      if (name !== 'deepData') expect(response.status).toBe('error');
    }
  });

  it('a tool whose promise never settles ends at its timeout', async () => {
    const reg = registry();
    reg.register(tool('hangs', () => new Promise(() => undefined), 20));
    const response = await callSafely(reg, 'hangs', {});
    expect(codeOf(response)).toBe('TIMEOUT');
  });

  it('hostile args, names and options', async () => {
    const reg = registry();
    reg.register(tool('ok', () => ToolResponse.success('fine')));
    for (const args of [
      everyTrapThrows().proxy,
      revokedProxy(),
      deep(20_000),
      throwingProxy().logger,
    ]) {
      await callSafely(reg, 'ok', args);
    }
    const badName = {
      toString(): never {
        throw new Error('name');
      },
    };
    for (const name of [Symbol('x'), badName, revokedProxy(), 42, null]) {
      expect((await callSafely(reg, name, {})).status).toBe('error');
    }
    for (const options of [everyTrapThrows().proxy, revokedProxy(), 7]) {
      expect((await callSafely(reg, 'ok', {}, options)).status).toBe('success');
    }
  });

  it('signals already aborted, or whose reads throw', async () => {
    const reg = registry();
    reg.register(tool('ok', () => ToolResponse.success('fine')));
    const aborted = AbortSignal.abort(new Error('gone'));
    expect((await callSafely(reg, 'ok', {}, { signal: aborted })).status).toBe(
      'error',
    );
    const hostileReason = new AbortController();
    Object.defineProperty(hostileReason.signal, 'reason', {
      get(): never {
        throw new Error('reason');
      },
    });
    hostileReason.abort();
    await callSafely(reg, 'ok', {}, { signal: hostileReason.signal });
    // Passes `instanceof AbortSignal` (the target's prototype), then every read throws.
    const readsThrow = new Proxy(new AbortController().signal, {
      get(): never {
        throw new Error('signal read');
      },
    });
    await callSafely(reg, 'ok', {}, { signal: readsThrow });
  });

  it('tool:start and tool:end listeners that throw, on sync and async tools', async () => {
    const reg = registry({ logger: throwingLogger().logger });
    reg.register(tool('sync', () => ToolResponse.success('fine')));
    reg.register(
      tool('async', () => Promise.resolve(ToolResponse.success('fine'))),
    );
    reg.on('tool:start', () => {
      throw new Error('start listener');
    });
    reg.on('tool:end', () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the hostile value is the point
      throw everyTrapThrows().proxy;
    });
    expect((await callSafely(reg, 'sync', {})).status).toBe('success');
    expect((await callSafely(reg, 'async', {})).status).toBe('success');
  });

  it('a re-entrant call from a tool:end listener, and from the logger', async () => {
    let inner: Promise<ToolResponse> | undefined;
    let logged = 0;
    const reg: ToolRegistry = registry({
      logger: {
        trace: () => undefined,
        debug: () => undefined,
        info: () => {
          logged += 1;
          if (logged === 1) void reg.call('sync', { from: 'logger' });
        },
        warn: () => undefined,
        error: () => undefined,
        child() {
          return this;
        },
      },
    });
    reg.register(tool('sync', () => ToolResponse.success('fine')));
    let ends = 0;
    reg.on('tool:end', () => {
      ends += 1;
      if (ends === 1) inner = reg.call('sync', { from: 'listener' });
    });
    expect((await callSafely(reg, 'sync', {})).status).toBe('success');
    expect(inner).toBeInstanceOf(Promise);
    expect((await inner)?.status).toBe('success');
    expect(logged).toBeGreaterThanOrEqual(2);
  });

  it('a tracer whose startSpan throws', async () => {
    const reg = registry({
      telemetry: {
        tracer: {
          startSpan(): never {
            throw new Error('tracer down');
          },
          startActiveSpan(): never {
            throw new Error('tracer down');
          },
        } as never,
      },
    });
    reg.register(tool('sync', () => ToolResponse.success('fine')));
    expect((await callSafely(reg, 'sync', {})).status).toBe('success');
  });

  it('a span whose every method throws', async () => {
    const span = everyTrapThrows().proxy;
    const tracer = { startSpan: () => span, startActiveSpan: () => span };
    const reg = registry({ telemetry: { tracer: tracer as never } });
    reg.register(tool('sync', () => ToolResponse.success('fine')));
    reg.register(
      tool('async', () => Promise.resolve(ToolResponse.success('fine'))),
    );
    expect((await callSafely(reg, 'sync', {})).status).toBe('success');
    expect((await callSafely(reg, 'async', {})).status).toBe('success');
  });
});

describe('events and the promise, in order, for a synchronous tool', () => {
  it('tool:start, then tool:end, then the promise resolves; tool:end sees the same response', async () => {
    const reg = registry();
    reg.register(tool('sync', () => ToolResponse.success('fine')));
    const order: string[] = [];
    let seen: ToolResponse | undefined;
    reg.on('tool:start', () => order.push('start'));
    reg.on('tool:end', (event) => {
      order.push('end');
      seen = event.response;
    });
    const pending = reg.call('sync', {});
    order.push('returned');
    const response = await pending;
    order.push('resolved');
    expect(order).toEqual(['start', 'end', 'returned', 'resolved']);
    expect(seen).toBe(response);
  });
});
