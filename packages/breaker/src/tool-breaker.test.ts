import { getEventListeners } from 'node:events';
import { allToolErrorCodes, type ToolErrorCode } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type BreakerOptions } from './breaker-options.ts';
import { bucketTicker } from './bucket-ticker.ts';
import {
  createToolBreaker,
  type StateChange,
  type ToolBreaker,
} from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

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

const created: ToolBreaker[] = [];

function make(options: BreakerOptions = {}, name = 'web_fetch'): ToolBreaker {
  const breaker = createToolBreaker(name, options);
  created.push(breaker);
  return breaker;
}

function changesOf(breaker: ToolBreaker): StateChange[] {
  const changes: StateChange[] = [];
  breaker.onStateChange((change) => changes.push(change));
  return changes;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

const ok = (): ToolResponse => ToolResponse.success('ok');
const failure = (code: ToolErrorCode = 'NETWORK_ERROR'): ToolResponse =>
  ToolResponse.error(code, `failed with ${code}`);

async function callWith(
  breaker: ToolBreaker,
  response: ToolResponse,
): Promise<ToolResponse> {
  return breaker.execute(async () => response);
}

async function failTimes(breaker: ToolBreaker, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await callWith(breaker, failure());
}

function codeOf(response: ToolResponse): ToolErrorCode | undefined {
  return response.status === 'error' ? response.errorInfo.code : undefined;
}

function retryAfterOf(response: ToolResponse): number | undefined {
  return response.status === 'error'
    ? response.errorInfo.retryAfterMs
    : undefined;
}

const fast: BreakerOptions = {
  minimumCalls: 2,
  resetTimeoutMs: 30_000,
  timeoutMs: 1_000,
  graceMs: 100,
};

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const breaker of created.splice(0)) breaker.shutdown();
  expect(bucketTicker.stats()).toEqual({ intervals: 0, breakers: 0 });
  vi.useRealTimers();
});

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

describe('open state', () => {
  it('8. while open: CIRCUIT_OPEN with retryAfterMs, the tool is not run, rejected is counted', async () => {
    const breaker = make(fast);
    const openedAt = Date.now();
    await failTimes(breaker, 2);
    await vi.advanceTimersByTimeAsync(10_000);
    const tool = vi.fn(async () => ok());
    const response = await breaker.execute(tool);
    expect(tool).not.toHaveBeenCalled();
    expect(codeOf(response)).toBe('CIRCUIT_OPEN');
    expect(retryAfterOf(response)).toBe(20_000);
    expect(response.status === 'error' && response.errorInfo.retryable).toBe(
      true,
    );
    await breaker.execute(tool);
    expect(breaker.snapshot()).toMatchObject({
      state: 'open',
      openedAt,
      nextAttemptAt: openedAt + 30_000,
      window: { rejected: 2, failures: 2 },
    });
  });

  it('9. stays open at resetTimeoutMs − 1 and is half-open at resetTimeoutMs', async () => {
    const breaker = make(fast);
    await failTimes(breaker, 2);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(1);
    expect(breaker.state).toBe('half_open');
  });
});

describe('half-open', () => {
  async function halfOpen(breaker: ToolBreaker): Promise<void> {
    await failTimes(breaker, 2);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(breaker.state).toBe('half_open');
  }

  it('10. lets exactly one trial through; concurrent calls get CIRCUIT_OPEN with retryAfterMs 0', async () => {
    const breaker = make(fast);
    await halfOpen(breaker);
    const trial = deferred<ToolResponse>();
    const trialTool = vi.fn(() => trial.promise);
    const other = vi.fn(async () => ok());
    const first = breaker.execute(trialTool);
    const second = await breaker.execute(other);
    const third = await breaker.execute(other);
    expect(trialTool).toHaveBeenCalledTimes(1);
    expect(other).not.toHaveBeenCalled();
    for (const refused of [second, third]) {
      expect(codeOf(refused)).toBe('CIRCUIT_OPEN');
      expect(retryAfterOf(refused)).toBe(0);
    }
    const success = ok();
    trial.resolve(success);
    expect(await first).toBe(success);
    expect(breaker.state).toBe('closed');
  });

  it('11. a successful trial closes the breaker and the close event fires exactly once', async () => {
    const breaker = make(fast);
    await halfOpen(breaker);
    const changes = changesOf(breaker);
    await callWith(breaker, ok());
    await callWith(breaker, ok());
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual([
      { name: 'web_fetch', from: 'half_open', to: 'closed', origin: 'process' },
    ]);
  });

  it('12. a failed trial reopens the breaker and restarts the reset timer', async () => {
    const breaker = make(fast);
    await halfOpen(breaker);
    const reopenedAt = Date.now();
    const response = await callWith(breaker, failure('API_ERROR'));
    expect(codeOf(response)).toBe('API_ERROR');
    expect(breaker.snapshot()).toMatchObject({
      state: 'open',
      openedAt: reopenedAt,
      nextAttemptAt: reopenedAt + 30_000,
    });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(1);
    expect(breaker.state).toBe('half_open');
  });

  it('13. a hanging trial still ends: the backstop gives TIMEOUT, reopens, and the next trial runs', async () => {
    const breaker = make(fast);
    await halfOpen(breaker);
    let seen: AbortSignal | undefined;
    const hanging = breaker.execute(({ signal }) => {
      seen = signal;
      return new Promise<ToolResponse>(() => undefined);
    });
    await vi.advanceTimersByTimeAsync(1_099);
    expect(breaker.state).toBe('half_open');
    await vi.advanceTimersByTimeAsync(1);
    const response = await hanging;
    expect(codeOf(response)).toBe('TIMEOUT');
    expect(response.text).toContain('1100 ms');
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as DOMException).name).toBe('TimeoutError');
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(breaker.state).toBe('half_open');
    await callWith(breaker, ok());
    expect(breaker.state).toBe('closed');
  });

  it('14. a trial that returns a non-counted code (NOT_FOUND) closes the breaker', async () => {
    const breaker = make(fast);
    await halfOpen(breaker);
    const notFound = failure('NOT_FOUND');
    expect(await callWith(breaker, notFound)).toBe(notFound);
    expect(breaker.state).toBe('closed');
  });
});

describe('closed again', () => {
  it('15. the window is reset on close: one failure after recovery does not reopen', async () => {
    const breaker = make({ ...fast, minimumCalls: 3 });
    await failTimes(breaker, 3);
    await vi.advanceTimersByTimeAsync(30_000);
    await callWith(breaker, ok());
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window).toMatchObject({
      calls: 0,
      failures: 0,
      successes: 0,
    });
    await failTimes(breaker, 1);
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
  });
});

describe('timeouts and concurrency', () => {
  it('16. the backstop aborts only its own call, ignores the late result and counts it once', async () => {
    const breaker = make({ ...fast, minimumCalls: 5 });
    const late = deferred<ToolResponse>();
    const other = deferred<ToolResponse>();
    const signals: AbortSignal[] = [];
    const slow = breaker.execute(({ signal }) => {
      signals.push(signal);
      return late.promise;
    });
    await vi.advanceTimersByTimeAsync(500);
    const running = breaker.execute(({ signal }) => {
      signals.push(signal);
      return other.promise;
    });
    await vi.advanceTimersByTimeAsync(600);
    const timedOut = await slow;
    expect(codeOf(timedOut)).toBe('TIMEOUT');
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
    late.resolve(ok());
    const success = ok();
    other.resolve(success);
    expect(await running).toBe(success);
    expect(breaker.snapshot().window).toMatchObject({
      calls: 2,
      failures: 1,
      timeouts: 1,
      successes: 1,
    });
  });

  it('16. a TIMEOUT response from the tool’s own timeout is counted once, without the backstop', async () => {
    const breaker = make(fast);
    const timeout = failure('TIMEOUT');
    expect(await callWith(breaker, timeout)).toBe(timeout);
    expect(breaker.snapshot().window).toMatchObject({
      calls: 1,
      failures: 1,
      timeouts: 0,
    });
  });

  it('17. a burst of concurrent failures opens once and the reset timer still fires', async () => {
    const breaker = make({ ...fast, minimumCalls: 3 });
    const changes = changesOf(breaker);
    const pending = Array.from({ length: 5 }, () => deferred<ToolResponse>());
    const calls = pending.map((each) => breaker.execute(() => each.promise));
    for (const each of pending) each.resolve(failure());
    const responses = await Promise.all(calls);
    expect(responses.map(codeOf)).toEqual(Array(5).fill('NETWORK_ERROR'));
    expect(changes.filter((change) => change.to === 'open')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(breaker.state).toBe('half_open');
  });

  it('18. a success from a call started before opening does not close an open breaker', async () => {
    const breaker = make({ ...fast, minimumCalls: 3 });
    const slow = deferred<ToolResponse>();
    const started = breaker.execute(() => slow.promise);
    await failTimes(breaker, 3);
    expect(breaker.state).toBe('open');
    const success = ok();
    slow.resolve(success);
    expect(await started).toBe(success);
    expect(breaker.state).toBe('open');
  });

  it('links the caller’s signal to the per-call signal and unlinks it when the call ends', async () => {
    const breaker = make();
    const caller = new AbortController();
    // A long-lived caller signal outlives many calls; each must unlink itself when it ends.
    for (let i = 0; i < 3; i++) {
      await breaker.execute(async () => ok(), { signal: caller.signal });
    }
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    let seen: AbortSignal | undefined;
    const pending = breaker.execute(
      ({ signal }) =>
        new Promise<ToolResponse>((resolve) => {
          seen = signal;
          signal.addEventListener('abort', () => {
            resolve(
              ToolResponse.error('EXECUTION_ERROR', 'stopped', {
                cancelled: true,
              }),
            );
          });
        }),
      { signal: caller.signal },
    );
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('user pressed stop');
    caller.abort(reason);
    const response = await pending;
    expect(seen?.reason).toBe(reason);
    expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
      true,
    );
    expect(breaker.snapshot().window.failures).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a tool that throws after its caller cancelled is reported as cancelled, not counted', async () => {
    const breaker = make({ minimumCalls: 1 });
    const caller = new AbortController();
    const pending = breaker.execute(
      ({ signal }) =>
        new Promise<ToolResponse>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
      { signal: caller.signal },
    );
    caller.abort();
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window.failures).toBe(0);
  });
});

describe('events, controls and lifecycle', () => {
  it('19. state changes arrive closed→open→half_open→closed, one per transition, none for no-ops', async () => {
    const breaker = make(fast);
    const changes = changesOf(breaker);
    await failTimes(breaker, 3);
    await callWith(breaker, ok());
    breaker.forceOpen().release();
    await vi.advanceTimersByTimeAsync(30_000);
    await callWith(breaker, ok());
    await callWith(breaker, ok());
    expect(changes).toEqual([
      {
        name: 'web_fetch',
        from: 'closed',
        to: 'open',
        reason: 'NETWORK_ERROR',
        origin: 'process',
      },
      { name: 'web_fetch', from: 'open', to: 'half_open', origin: 'process' },
      { name: 'web_fetch', from: 'half_open', to: 'closed', origin: 'process' },
    ]);
  });

  it('19. unsubscribe stops events, and a throwing listener never breaks the call', async () => {
    const breaker = make(fast);
    const kept = vi.fn();
    breaker.onStateChange(() => {
      throw new Error('listener bug');
    });
    const unsubscribe = breaker.onStateChange(kept);
    breaker.onStateChange(kept);
    const response = failure();
    await callWith(breaker, response);
    expect(await callWith(breaker, response)).toBe(response);
    expect(breaker.state).toBe('open');
    expect(kept).toHaveBeenCalledTimes(2);
    unsubscribe();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(kept).toHaveBeenCalledTimes(3);
  });

  it('20. forceOpen() is ref-counted and refuses calls until every handle is released', async () => {
    const breaker = make();
    const changes = changesOf(breaker);
    const tool = vi.fn(async () => ok());
    const first = breaker.forceOpen();
    const second = breaker.forceOpen();
    const refused = await breaker.execute(tool);
    expect(codeOf(refused)).toBe('CIRCUIT_OPEN');
    expect(breaker.snapshot()).toMatchObject({
      state: 'open',
      openedAt: Date.now(),
    });
    expect(breaker.snapshot().nextAttemptAt).toBeUndefined();
    first.release();
    first.release();
    expect(codeOf(await breaker.execute(tool))).toBe('CIRCUIT_OPEN');
    expect(tool).not.toHaveBeenCalled();
    second.release();
    expect((await breaker.execute(tool)).status).toBe('success');
    expect(tool).toHaveBeenCalledTimes(1);
    expect(changes.map(({ from, to }) => `${from}→${to}`)).toEqual([
      'closed→open',
      'open→closed',
    ]);
  });

  it('20. enabled:false passes every call through, records nothing and holds no timer', async () => {
    const breaker = make({ enabled: false, minimumCalls: 1 });
    const response = failure('TIMEOUT');
    const tool = vi.fn(async () => response);
    for (let i = 0; i < 20; i++) {
      expect(await breaker.execute(tool)).toBe(response);
    }
    expect(tool).toHaveBeenCalledTimes(20);
    expect(breaker.state).toBe('disabled');
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
    expect(vi.getTimerCount()).toBe(0);
    const thrown = await breaker.execute(async () => {
      throw new Error('still normalised');
    });
    expect(codeOf(thrown)).toBe('EXECUTION_ERROR');
  });
});
