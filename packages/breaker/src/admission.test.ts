import { ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

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

async function openThenHalfOpen(breaker: ToolBreaker): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const admission = breaker.admit();
    if (admission.admitted) admission.record(failure);
  }
  await vi.advanceTimersByTimeAsync(1_000);
  expect(breaker.state).toBe('half_open');
}

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
    // Calls are counted when they end, as the fleet's shared window counts them.
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
    if (first.admitted) first.record(failure);
    expect(breaker.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
    expect(breaker.state).toBe('closed');
    if (second.admitted) second.record(failure);
    expect(breaker.state).toBe('open');
  });

  it('takes the failure rate over calls that ended, not calls still in flight', () => {
    const breaker = make();
    const inFlight = [breaker.admit(), breaker.admit(), breaker.admit()];
    const [first, second, third] = inFlight;
    if (!first?.admitted || !second?.admitted || !third?.admitted) {
      throw new Error('expected three admissions');
    }
    first.record(failure);
    second.record(failure);
    // 2 of 2 ended calls failed; counting the third, still running, would have said 2 of 3.
    expect(breaker.snapshot().window).toMatchObject({
      calls: 2,
      failures: 2,
      failureRatePct: 100,
    });
    expect(breaker.state).toBe('open');
    third.record(ToolResponse.success('late'));
    expect(breaker.snapshot().window).toMatchObject({
      calls: 3,
      failures: 2,
      successes: 1,
      rejected: 0,
    });
    // A success from a call let through before the circuit opened does not close it.
    expect(breaker.state).toBe('open');
  });

  it('counts a failure that ends after the circuit opened as a failure, not a refusal', () => {
    const breaker = make();
    const changes: string[] = [];
    breaker.onStateChange((change) => changes.push(change.to));
    const stale = breaker.admit();
    for (let i = 0; i < 2; i++) {
      const admission = breaker.admit();
      if (admission.admitted) admission.record(failure);
    }
    expect(breaker.state).toBe('open');
    if (stale.admitted) stale.record(failure);
    expect(breaker.snapshot().window).toMatchObject({
      calls: 3,
      failures: 3,
      rejected: 0,
    });
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['open']);
  });

  it('reopens a half-open circuit when a call let through before it opened fails, as opossum does', async () => {
    const breaker = make();
    const changes: string[] = [];
    breaker.onStateChange((change) => changes.push(change.to));
    const stale = breaker.admit();
    for (let i = 0; i < 2; i++) {
      const admission = breaker.admit();
      if (admission.admitted) admission.record(failure);
    }
    await vi.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe('half_open');
    if (stale.admitted) stale.record(failure);
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['open', 'half_open', 'open']);
    // The reset timer runs again from the reopening.
    await vi.advanceTimersByTimeAsync(999);
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(1);
    expect(breaker.state).toBe('half_open');
  });

  it('closes a half-open circuit when a call let through before it opened succeeds, as opossum does', async () => {
    const breaker = make();
    const stale = breaker.admit();
    for (let i = 0; i < 2; i++) {
      const admission = breaker.admit();
      if (admission.admitted) admission.record(failure);
    }
    await vi.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe('half_open');
    if (stale.admitted) stale.record(ToolResponse.success('back'));
    expect(breaker.state).toBe('closed');
    // Closing flushed the window, as every close does.
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
  });

  it('counts a half-open trial when it ends, like every other call', async () => {
    const breaker = make();
    await openThenHalfOpen(breaker);
    const trial = breaker.admit();
    if (!trial.admitted) throw new Error('expected the trial');
    // The trial is still running: it is not in the window yet.
    expect(breaker.snapshot().window).toMatchObject({ calls: 2, failures: 2 });
    // A call refused while the trial runs is a refusal, counted at once.
    expect(breaker.admit().admitted).toBe(false);
    expect(breaker.snapshot().window).toMatchObject({ calls: 3, rejected: 1 });
    trial.record(failure);
    expect(breaker.state).toBe('open');
    expect(breaker.snapshot().window).toMatchObject({
      calls: 4,
      failures: 3,
      rejected: 1,
    });
  });

  it('keeps a trial that ends after a stale success closed the circuit inside its window', async () => {
    for (const ending of [failure, ToolResponse.success('late trial')]) {
      const breaker = make();
      const changes: string[] = [];
      breaker.onStateChange((change) => changes.push(change.to));
      const stale = breaker.admit();
      await openThenHalfOpen(breaker);
      const trial = breaker.admit();
      if (!stale.admitted || !trial.admitted)
        throw new Error('expected two admissions');
      stale.record(ToolResponse.success('back'));
      expect(breaker.state).toBe('closed');
      trial.record(ending);
      // The flushed window holds the trial alone: never more failures or successes than calls.
      const failed = ending === failure ? 1 : 0;
      expect(breaker.snapshot().window).toMatchObject({
        calls: 1,
        failures: failed,
        successes: 1 - failed,
        failureRatePct: failed * 100,
      });
      // One failure is below minimumCalls (2): the recovered circuit stays closed.
      expect(breaker.state).toBe('closed');
      expect(changes).toEqual(['open', 'half_open', 'closed']);
    }
  });

  it('records nothing into a circuit shut down while the call ran, and does not throw', () => {
    const breaker = make();
    const running = [breaker.admit(), breaker.admit()];
    breaker.shutdown();
    for (const [index, admission] of running.entries()) {
      if (!admission.admitted) throw new Error('expected an admission');
      expect(() => {
        admission.record(index === 0 ? failure : ToolResponse.success('late'));
      }).not.toThrow();
    }
    expect(breaker.state).toBe('shutdown');
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
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

describe('timeouts in the window', () => {
  it('counts a timed-out call in timeouts only while TIMEOUT counts as a failure', () => {
    const timeout = ToolResponse.error('TIMEOUT', 'too slow');
    const counted = make();
    const notCounted = createToolBreaker('slow_tool', {
      failureCodes: ['NETWORK_ERROR'],
    });
    created.push(notCounted);
    for (const breaker of [counted, notCounted]) {
      const admission = breaker.admit();
      if (admission.admitted) admission.record(timeout, { timedOut: true });
    }
    expect(counted.snapshot().window).toMatchObject({
      calls: 1,
      failures: 1,
      timeouts: 1,
    });
    expect(notCounted.snapshot().window).toMatchObject({
      calls: 1,
      failures: 0,
      successes: 1,
      timeouts: 0,
    });
  });
});
