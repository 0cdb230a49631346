import { ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';

const created: ToolBreaker[] = [];

function make(): ToolBreaker {
  const breaker = createToolBreaker('web_fetch', {
    minimumCalls: 2,
    resetTimeoutMs: 1_000,
  });
  created.push(breaker);
  return breaker;
}

const failure = ToolResponse.error('NETWORK_ERROR', 'reset');

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const breaker of created.splice(0)) breaker.shutdown();
  vi.useRealTimers();
});

describe('the admit/record seam', () => {
  it('counts synchronously on record, with no timer of its own', () => {
    const breaker = make();
    // The window's shared bucket ticker is the breaker's only timer.
    const timers = vi.getTimerCount();
    const first = breaker.admit();
    const second = breaker.admit();
    expect(first.admitted && second.admitted).toBe(true);
    // opossum's own timeout is off: admitting holds no timer.
    expect(vi.getTimerCount()).toBe(timers);
    if (first.admitted) first.record(failure);
    expect(breaker.snapshot().window).toMatchObject({ calls: 2, failures: 1 });
    if (second.admitted) second.record(failure);
    expect(breaker.state).toBe('open');
  });

  it('ignores a second record of the same admission', () => {
    const breaker = make();
    const admission = breaker.admit();
    if (!admission.admitted) throw new Error('expected an admission');
    admission.record(ToolResponse.success('ok'));
    admission.record(failure);
    expect(breaker.snapshot().window).toMatchObject({
      calls: 1,
      failures: 0,
      successes: 1,
    });
  });

  it('refuses with CIRCUIT_OPEN and retryAfterMs while open, 0 while a trial is out', async () => {
    const breaker = make();
    for (let i = 0; i < 2; i++) {
      const admission = breaker.admit();
      if (admission.admitted) admission.record(failure);
    }
    await vi.advanceTimersByTimeAsync(400);
    const refused = breaker.admit();
    expect(refused.admitted).toBe(false);
    if (refused.admitted) return;
    expect(refused.retryAfterMs).toBe(600);
    expect(refused.response.errorInfo).toMatchObject({
      code: 'CIRCUIT_OPEN',
      retryAfterMs: 600,
    });
    await vi.advanceTimersByTimeAsync(600);
    const trial = breaker.admit();
    expect(trial.admitted).toBe(true);
    const concurrent = breaker.admit();
    expect(!concurrent.admitted && concurrent.retryAfterMs).toBe(0);
    if (trial.admitted) trial.record(ToolResponse.success('back'));
    expect(breaker.state).toBe('closed');
  });

  it('an admission is not a thenable, so awaiting it cannot hang', async () => {
    const breaker = make();
    const admission: unknown = await Promise.resolve(breaker.admit());
    if (typeof admission !== 'object' || admission === null)
      throw new Error('no admission');
    expect('then' in admission).toBe(false);
    expect((admission as { admitted?: unknown }).admitted).toBe(true);
  });

  it('refuses after shutdown and while forced open, with no retryAfterMs', () => {
    const breaker = make();
    const handle = breaker.forceOpen();
    const forced = breaker.admit();
    expect(!forced.admitted && forced.retryAfterMs).toBeUndefined();
    handle.release();
    breaker.shutdown();
    const shut = breaker.admit();
    expect(!shut.admitted && shut.response.errorInfo.retryable).toBe(false);
  });
});
