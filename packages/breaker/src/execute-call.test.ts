// execute(): the one deadline of a standalone call, the caller's signal, concurrent calls.
import { getEventListeners } from 'node:events';
import { ToolResponse } from '@candor/tools';
import { describe, expect, it, vi } from 'vitest';
import {
  callWith,
  changesOf,
  codeOf,
  deferred,
  failTimes,
  failure,
  fast,
  ok,
  useBreakers,
} from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const make = useBreakers();

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
