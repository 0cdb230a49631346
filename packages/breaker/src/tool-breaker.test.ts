import { allToolErrorCodes, type ToolErrorCode } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import { describe, expect, it, vi } from 'vitest';
import {
  callWith,
  codeOf,
  failTimes,
  failure,
  ok,
  useBreakers,
} from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const make = useBreakers();

// The six dependency-health codes, written out rather than read from the metadata the
// implementation uses, so this table is an independent oracle.
const COUNTED: ReadonlySet<ToolErrorCode> = new Set([
  'TIMEOUT',
  'NETWORK_ERROR',
  'API_ERROR',
  'RATE_LIMIT',
  'INTERNAL_ERROR',
  'EXECUTION_ERROR',
]);

describe('classification and pass-through', () => {
  it('1. returns success, partial and every error response as the same object', async () => {
    const breaker = make();
    const responses = [
      ok(),
      ToolResponse.partial('first 10 lines', {
        reason: 'truncated',
        data: [1],
      }),
      ToolResponse.error('NOT_FOUND', 'no such file', {
        details: { path: '/x' },
      }),
      ToolResponse.error('RATE_LIMIT', 'slow down', { retryAfterMs: 1_500 }),
    ];
    for (const response of responses) {
      expect(await callWith(breaker, response)).toBe(response);
    }
    const last = responses[3];
    expect(last?.status === 'error' && last.errorInfo).toEqual({
      code: 'RATE_LIMIT',
      message: 'slow down',
      retryable: true,
      retryAfterMs: 1_500,
    });
  });

  it.each(allToolErrorCodes.map((code) => [code, COUNTED.has(code)] as const))(
    '2. %s counted=%s: only counted codes raise failures and open the breaker',
    async (code, counted) => {
      const breaker = make({ minimumCalls: 5 });
      const tool = vi.fn(async () => failure(code));
      for (let i = 0; i < 10; i++) await breaker.execute(tool);
      const { window, state } = breaker.snapshot();
      if (counted) {
        expect(state).toBe('open');
        expect(tool).toHaveBeenCalledTimes(5);
        expect(window).toMatchObject({ failures: 5, successes: 0 });
        expect(window.rejected).toBe(5);
      } else {
        expect(state).toBe('closed');
        expect(tool).toHaveBeenCalledTimes(10);
        expect(window).toMatchObject({
          calls: 10,
          failures: 0,
          successes: 10,
          rejected: 0,
        });
      }
    },
  );

  it('2. cancelled and denied responses never count, even at 100% of calls', async () => {
    const breaker = make({ minimumCalls: 2 });
    const cancelled = ToolResponse.error('TIMEOUT', 'caller gave up', {
      cancelled: true,
    });
    const denied = ToolResponse.denied('the user said no');
    for (let i = 0; i < 5; i++) {
      expect(await callWith(breaker, cancelled)).toBe(cancelled);
      expect(await callWith(breaker, denied)).toBe(denied);
    }
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window.failures).toBe(0);
  });

  it('2. failureCodes overrides the default set; CIRCUIT_OPEN never counts even when listed', async () => {
    const breaker = make({
      minimumCalls: 3,
      failureCodes: ['NOT_FOUND', 'CIRCUIT_OPEN'],
    });
    await callWith(breaker, failure('TIMEOUT'));
    await callWith(breaker, failure('CIRCUIT_OPEN'));
    await callWith(breaker, failure('CIRCUIT_OPEN'));
    expect(breaker.snapshot().window).toMatchObject({
      calls: 3,
      failures: 0,
    });
    await callWith(breaker, failure('NOT_FOUND'));
    await callWith(breaker, failure('NOT_FOUND'));
    expect(breaker.snapshot().window.failures).toBe(2);
  });

  it('3. a breaker that is never executed records nothing (validation failures are the registry’s: it never calls execute)', async () => {
    const breaker = make();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(breaker.snapshot()).toEqual({
      name: 'web_fetch',
      state: 'closed',
      window: {
        calls: 0,
        failures: 0,
        successes: 0,
        rejected: 0,
        timeouts: 0,
        failureRatePct: 0,
      },
    });
  });

  it('3. a call whose caller already aborted is not run and not recorded', async () => {
    const breaker = make();
    const tool = vi.fn(async () => ok());
    const response = await breaker.execute(tool, {
      signal: AbortSignal.abort(),
    });
    expect(tool).not.toHaveBeenCalled();
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
    expect(breaker.snapshot().window.calls).toBe(0);
  });

  it('4. a throw inside the tool is classified like the registry does (classifyError), counted, without a stack trace', async () => {
    const breaker = make({ minimumCalls: 3 });
    const thrown = await breaker.execute(async () => {
      throw new Error('database connection lost');
    });
    expect(codeOf(thrown)).toBe('EXECUTION_ERROR');
    expect(thrown.text).toContain('database connection lost');
    expect(thrown.text).not.toMatch(/\n\s*at /);
    // A synchronous throw from a non-async function is caught at the same boundary.
    const syncThrow = await breaker.execute(() => {
      throw new TypeError('bad state');
    });
    expect(codeOf(syncThrow)).toBe('EXECUTION_ERROR');
    // The same code the registry gives: a reset connection is the network's fault, not ours.
    const reset = await breaker.execute(async () => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    });
    expect(codeOf(reset)).toBe('NETWORK_ERROR');
    expect(breaker.snapshot().window).toMatchObject({ calls: 3, failures: 3 });
    expect(breaker.state).toBe('open');
  });

  it('4. a value that is not a ToolResponse becomes a counted INTERNAL_ERROR', async () => {
    const breaker = make();
    const response = await breaker.execute(
      async () => undefined as unknown as ToolResponse,
    );
    expect(codeOf(response)).toBe('INTERNAL_ERROR');
    expect(response.text).toContain('not a ToolResponse');
    expect(breaker.snapshot().window.failures).toBe(1);
  });
});

describe('misuse', () => {
  it('a missing run function gives an INTERNAL_ERROR response, not a rejection, and records nothing', async () => {
    const breaker = make();
    const response = await breaker.execute(
      undefined as unknown as () => Promise<ToolResponse>,
    );
    expect(codeOf(response)).toBe('INTERNAL_ERROR');
    expect(response.text).toContain('needs a function');
    expect(breaker.snapshot().window.calls).toBe(0);
    expect(() =>
      breaker.onStateChange(undefined as unknown as () => void),
    ).toThrow(TypeError);
  });
});

describe('opening', () => {
  it('5. does not open below minimumCalls, even when every call failed', async () => {
    const breaker = make({ minimumCalls: 5 });
    await failTimes(breaker, 4);
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window).toMatchObject({
      calls: 4,
      failures: 4,
      failureRatePct: 100,
    });
    await failTimes(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('6. 3 failures in 6 calls (exactly 50%) stays closed; 3 in 5 opens', async () => {
    const even = make({ minimumCalls: 5 }, 'even');
    for (const response of [ok(), ok(), ok()]) await callWith(even, response);
    await failTimes(even, 3);
    expect(even.state).toBe('closed');
    expect(even.snapshot().window.failureRatePct).toBe(50);

    const over = make({ minimumCalls: 5 }, 'over');
    for (const response of [ok(), ok()]) await callWith(over, response);
    await failTimes(over, 3);
    expect(over.state).toBe('open');
  });

  it('6. the rate is only evaluated on a failure, so a success never opens', async () => {
    const breaker = make({ minimumCalls: 5 });
    await failTimes(breaker, 4);
    await callWith(breaker, ok());
    expect(breaker.snapshot().window.failureRatePct).toBe(80);
    expect(breaker.state).toBe('closed');
    await failTimes(breaker, 1);
    expect(breaker.state).toBe('open');
  });

  it('7. failures older than windowMs stop counting', async () => {
    const breaker = make({ minimumCalls: 5, windowMs: 60_000, buckets: 6 });
    await failTimes(breaker, 4);
    await vi.advanceTimersByTimeAsync(50_000);
    expect(breaker.snapshot().window.failures).toBe(4);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
    await failTimes(breaker, 1);
    expect(breaker.state).toBe('closed');
  });
});
