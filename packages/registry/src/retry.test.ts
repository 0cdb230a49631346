import { getEventListeners } from 'node:events';
import { defineTool, type RetryOptions, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

let registry: ToolRegistry;

beforeEach(() => {
  vi.useFakeTimers();
  registry = new ToolRegistry({ breaker: { minimumCalls: 100 } });
});

afterEach(() => {
  registry.shutdown();
  vi.useRealTimers();
});

function scripted(
  answers: ToolResponse[],
  retry: RetryOptions = { baseDelayMs: 100 },
) {
  const run = vi.fn(
    (): ToolResponse => answers.shift() ?? ToolResponse.success('done'),
  );
  registry.register(
    defineTool({
      name: 'lookup',
      description: 'An idempotent lookup',
      input: z.object({ id: z.string() }),
      idempotent: true,
      retry,
      run,
    }),
  );
  return run;
}

const networkError = (): ToolResponse =>
  ToolResponse.error('NETWORK_ERROR', 'connection reset');

function codeOf(response: ToolResponse): string | undefined {
  return response.status === 'error' ? response.errorInfo.code : undefined;
}

describe('retries for idempotent tools', () => {
  it('retries transient failures, each attempt through the breaker, and says how many attempts', async () => {
    const run = scripted([networkError(), networkError()]);
    const pending = registry.call('lookup', { id: 'a' });
    await vi.advanceTimersByTimeAsync(10_000);
    const response = await pending;
    expect(response.status).toBe('success');
    expect(response.stats['attempts']).toBe(3);
    expect(run).toHaveBeenCalledTimes(3);
    expect(registry.health()[0]?.window).toMatchObject({
      calls: 3,
      failures: 2,
      successes: 1,
    });
  });

  it('stops after the last attempt and returns its failure', async () => {
    const run = scripted(
      [networkError(), networkError(), networkError(), networkError()],
      { attempts: 2, baseDelayMs: 10 },
    );
    const pending = registry.call('lookup', { id: 'a' });
    await vi.advanceTimersByTimeAsync(10_000);
    const response = await pending;
    expect(codeOf(response)).toBe('NETWORK_ERROR');
    expect(response.stats['attempts']).toBe(2);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('never retries invalid arguments, non-transient codes, non-retryable API errors or denials', async () => {
    const run = scripted([
      ToolResponse.error('NOT_FOUND', 'no such id'),
      ToolResponse.error('API_ERROR', 'HTTP 400', { retryable: false }),
      ToolResponse.denied('no'),
    ]);
    expect(codeOf(await registry.call('lookup', { id: 1 }))).toBe(
      'INVALID_PARAM',
    );
    expect(run).not.toHaveBeenCalled();
    for (const code of ['NOT_FOUND', 'API_ERROR', 'ACCESS_DENIED']) {
      const response = await registry.call('lookup', { id: 'a' });
      expect(codeOf(response)).toBe(code);
      expect(response.stats['attempts']).toBe(1);
    }
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('waits out retryAfterMs, and a longer one than the maximum ends the retries', async () => {
    const run = scripted(
      [
        ToolResponse.error('RATE_LIMIT', 'slow down', { retryAfterMs: 500 }),
        ToolResponse.error('RATE_LIMIT', 'slow down', {
          retryAfterMs: 60_000,
        }),
      ],
      { maxRetryAfterMs: 1_000 },
    );
    const pending = registry.call('lookup', { id: 'a' });
    await vi.advanceTimersByTimeAsync(499);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
    const response = await pending;
    expect(codeOf(response)).toBe('RATE_LIMIT');
    expect(response.stats['attempts']).toBe(2);
  });

  it('never retries CIRCUIT_OPEN: an attempt the breaker refuses ends the call', async () => {
    registry.shutdown();
    registry = new ToolRegistry({ breaker: { minimumCalls: 1 } });
    const run = scripted([networkError(), networkError()], {
      baseDelayMs: 1,
    });
    const pending = registry.call('lookup', { id: 'a' });
    await vi.advanceTimersByTimeAsync(10_000);
    const response = await pending;
    expect(codeOf(response)).toBe('CIRCUIT_OPEN');
    expect(response.stats['attempts']).toBe(2);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('stops when the caller aborts during the backoff', async () => {
    const run = scripted([networkError()], { baseDelayMs: 10_000 });
    const controller = new AbortController();
    const pending = registry.call(
      'lookup',
      { id: 'a' },
      { signal: controller.signal },
    );
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
      true,
    );
    expect(run).toHaveBeenCalledTimes(1);
  });
});

describe('defineTool retry options', () => {
  const base = {
    name: 'x',
    description: 'x',
    input: z.object({}),
    run: () => ToolResponse.success('ok'),
  };

  it('follows the caller only while an asynchronous attempt runs, and cancels the attempt under way', async () => {
    const controller = new AbortController();
    const listeners = (): number =>
      getEventListeners(controller.signal, 'abort').length;
    const seen: boolean[] = [];
    const signals: AbortSignal[] = [];
    registry.register(
      defineTool({
        name: 'slow_lookup',
        description: 'An idempotent lookup that answers later',
        input: z.object({ id: z.string() }),
        idempotent: true,
        retry: { baseDelayMs: 100 },
        run: (_input, { signal }) => {
          signals.push(signal);
          seen.push(signal.aborted);
          // The first attempt fails at once; the second never answers: a hand-made thenable.
          if (signals.length === 1) return Promise.resolve(networkError());
          // Typed as a promise: what a tool returns is only ever read as a thenable.
          return { then: () => undefined } as unknown as Promise<ToolResponse>;
        },
      }),
    );
    const pending = registry.call(
      'slow_lookup',
      { id: 'a' },
      { signal: controller.signal },
    );
    await vi.advanceTimersByTimeAsync(1_000);
    // The second attempt is running: it, and only it, follows the caller.
    expect(signals).toHaveLength(2);
    expect(listeners()).toBe(1);
    controller.abort();
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
    expect(response.stats['attempts']).toBe(2);
    expect(signals.map((signal) => signal.aborted)).toEqual([false, true]);
    expect(seen).toEqual([false, false]);
    expect(listeners()).toBe(0);
  });

  it('refuses retries for a tool that is not idempotent', () => {
    expect(() => defineTool({ ...base, retry: {} })).toThrow(
      /retry needs idempotent: true/,
    );
  });

  it('names a bad or unknown retry option', () => {
    expect(() =>
      defineTool({ ...base, idempotent: true, retry: { attempts: 0 } }),
    ).toThrow(/retry.attempts must be a number from 1 to 10/);
    expect(() =>
      defineTool({
        ...base,
        idempotent: true,
        retry: { tries: 2 } as RetryOptions,
      }),
    ).toThrow(/unknown retry option "tries"/);
  });
});
