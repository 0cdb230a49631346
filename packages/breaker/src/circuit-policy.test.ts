// The policies opossum lacks (slow calls, several half-open calls, a count window), on the local
// breaker, with fake timers for every duration.
import { describe, expect, it, vi } from 'vitest';
import { type Admission } from './admission.ts';
import {
  changesOf,
  codeOf,
  failure,
  ok,
  retryAfterOf,
  useBreakers,
} from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';
import { type ToolBreaker } from './tool-breaker.ts';

failOnProcessWarnings();

const make = useBreakers();

/** Admits one call (which must be let through), waits `ms`, records `response`. */
async function call(
  breaker: ToolBreaker,
  response = ok(),
  ms = 0,
): Promise<void> {
  const admission = breaker.admit();
  expect(admission.admitted).toBe(true);
  if (!admission.admitted) return;
  if (ms > 0) await vi.advanceTimersByTimeAsync(ms);
  admission.record(response);
}

function admitted(breaker: ToolBreaker): Admission {
  const admission = breaker.admit();
  if (!admission.admitted) throw new Error('refused');
  return admission;
}

function transitions(changes: ReturnType<typeof changesOf>): string[] {
  return changes.map(({ from, to }) => `${from}→${to}`);
}

describe('slowCallMs and slowCallRatePct', () => {
  it('opens when slow calls reach the rate, though every call succeeded', async () => {
    const breaker = make({
      slowCallMs: 100,
      slowCallRatePct: 50,
      minimumCalls: 4,
      telemetry: false,
    });
    const changes = changesOf(breaker);
    await call(breaker, ok(), 150);
    // Exactly slowCallMs is not slow: resilience4j counts a call slower than the threshold.
    await call(breaker, ok(), 100);
    await call(breaker, ok(), 10);
    await call(breaker, ok(), 10);
    expect(breaker.state).toBe('closed');
    await call(breaker, ok(), 101);
    expect(breaker.state).toBe('closed');
    // 3 slow of 6: at the rate (50 %), which opens (resilience4j's rule for slow calls).
    await call(breaker, ok(), 101);
    expect(breaker.state).toBe('open');
    expect(transitions(changes)).toEqual(['closed→open']);
    const refused = breaker.admit();
    expect(refused.admitted).toBe(false);
    if (!refused.admitted) {
      expect(codeOf(refused.response)).toBe('CIRCUIT_OPEN');
      expect(refused.retryAfterMs).toBe(30_000);
    }
  });

  it('by default opens only when every call of the window is slow (slowCallRatePct 100)', async () => {
    const breaker = make({ slowCallMs: 1_000, minimumCalls: 3 });
    await call(breaker, ok(), 2_000);
    await call(breaker, ok(), 2_000);
    await call(breaker, ok(), 5);
    expect(breaker.state).toBe('closed');
    await call(breaker, ok(), 2_000);
    await call(breaker, ok(), 2_000);
    // 4 slow of 5 is 80 %: still closed.
    expect(breaker.state).toBe('closed');
    const slowOnly = make({ slowCallMs: 1_000, minimumCalls: 3 }, 'slow_only');
    for (let i = 0; i < 3; i++) await call(slowOnly, ok(), 1_500);
    expect(slowOnly.state).toBe('open');
  });

  it('a slow half-open trial reopens, a quick one closes; without slowCallMs a slow call is only a call', async () => {
    const breaker = make({ slowCallMs: 100, minimumCalls: 1 });
    await call(breaker, ok(), 500);
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(breaker.state).toBe('half_open');
    await call(breaker, ok(), 200);
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    await call(breaker, ok(), 50);
    expect(breaker.state).toBe('closed');
    const plain = make({ minimumCalls: 1 }, 'plain');
    await call(plain, ok(), 60_000);
    expect(plain.state).toBe('closed');
  });

  it('a slow failure counts once as a failure and once as slow', async () => {
    const breaker = make({
      slowCallMs: 100,
      slowCallRatePct: 100,
      failureRatePct: 99,
      minimumCalls: 2,
    });
    await call(breaker, failure(), 200);
    await call(breaker, ok(), 200);
    // Failures 50 % (not above 99), slow calls 100 %: open by the slow rule.
    expect(breaker.state).toBe('open');
    expect(breaker.snapshot().window).toMatchObject({
      calls: 2,
      failures: 1,
      successes: 1,
    });
  });

  it('slow calls drop out of the time window with their bucket', async () => {
    const breaker = make({
      slowCallMs: 100,
      minimumCalls: 2,
      windowMs: 6_000,
      buckets: 6,
    });
    await call(breaker, ok(), 200);
    // The slow call's bucket rotates out of the 6 s window.
    await vi.advanceTimersByTimeAsync(6_000);
    await call(breaker, ok(), 200);
    expect(breaker.state).toBe('closed');
    await call(breaker, ok(), 200);
    expect(breaker.state).toBe('open');
  });
});

describe('permittedCallsInHalfOpen', () => {
  async function opened(options = {}): Promise<ToolBreaker> {
    const breaker = make({
      minimumCalls: 1,
      permittedCallsInHalfOpen: 3,
      ...options,
    });
    await call(breaker, failure());
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(breaker.state).toBe('half_open');
    return breaker;
  }

  it('lets that many trials through at once and refuses the next with retryAfterMs 0', async () => {
    const breaker = await opened();
    const trials = [admitted(breaker), admitted(breaker), admitted(breaker)];
    const fourth = breaker.admit();
    expect(fourth.admitted).toBe(false);
    if (!fourth.admitted) {
      expect(retryAfterOf(fourth.response)).toBe(0);
      expect(fourth.retryAfterMs).toBe(0);
    }
    trials[0]?.record(ok());
    trials[1]?.record(ok());
    // Not every trial has ended: still half-open, still refusing.
    expect(breaker.state).toBe('half_open');
    expect(breaker.admit().admitted).toBe(false);
    trials[2]?.record(ok());
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window.calls).toBe(0);
  });

  it('closes when the trials’ failure rate stays below failureRatePct, reopens as soon as it cannot', async () => {
    const closes = await opened();
    const some = [admitted(closes), admitted(closes), admitted(closes)];
    some[0]?.record(failure());
    expect(closes.state).toBe('half_open');
    some[1]?.record(ok());
    some[2]?.record(ok());
    // 1 of 3 failed: 33 % is below 50 %.
    expect(closes.state).toBe('closed');

    const reopens = await opened();
    const changes = changesOf(reopens);
    const trials = [admitted(reopens), admitted(reopens), admitted(reopens)];
    trials[0]?.record(failure());
    trials[1]?.record(failure('API_ERROR'));
    // 2 of 3 have failed: at least 67 % whatever the third says; reopened at once.
    expect(reopens.state).toBe('open');
    expect(changes.at(-1)).toMatchObject({ to: 'open', reason: 'API_ERROR' });
    expect(reopens.snapshot().nextAttemptAt).toBe(Date.now() + 30_000);
    // The last trial of the failed round ends later: it decides nothing.
    trials[2]?.record(ok());
    expect(reopens.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reopens.state).toBe('half_open');
    // A new round: three fresh slots.
    const again = [admitted(reopens), admitted(reopens), admitted(reopens)];
    for (const trial of again) trial.record(ok());
    expect(reopens.state).toBe('closed');
  });

  it('a trial of an earlier round that ends late decides nothing in the next one', async () => {
    const breaker = await opened({ permittedCallsInHalfOpen: 2 });
    const first = admitted(breaker);
    const second = admitted(breaker);
    first.record(failure());
    // 1 of 2 is 50 %: at failureRatePct, which reopens.
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    const next = [admitted(breaker), admitted(breaker)];
    second.record(ok());
    expect(breaker.state).toBe('half_open');
    next[0]?.record(ok());
    expect(breaker.state).toBe('half_open');
    next[1]?.record(ok());
    expect(breaker.state).toBe('closed');
  });

  it('a call admitted while closed that ends during half-open is counted but decides nothing', async () => {
    const breaker = make({ minimumCalls: 2, permittedCallsInHalfOpen: 2 });
    const early = admitted(breaker);
    await call(breaker, failure());
    await call(breaker, failure());
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    early.record(ok());
    expect(breaker.state).toBe('half_open');
    expect(admitted(breaker)).toBeDefined();
    expect(admitted(breaker)).toBeDefined();
    expect(breaker.admit().admitted).toBe(false);
  });
});

describe('windowCalls', () => {
  it('rates the last N calls however old, dropping the oldest', async () => {
    const breaker = make({ windowCalls: 4 });
    await call(breaker, failure());
    await call(breaker, failure());
    await call(breaker, ok());
    // An hour later the count window still holds them (a time window would not).
    await vi.advanceTimersByTimeAsync(3_600_000);
    await call(breaker, ok());
    // minimumCalls defaults to min(5, windowCalls) = 4; 2 of 4 is not above 50 %.
    expect(breaker.state).toBe('closed');
    // [F S S F] then [S S F F]: still 50 %; the first failure dropped out each time.
    await call(breaker, failure());
    await call(breaker, failure());
    expect(breaker.state).toBe('closed');
    await call(breaker, failure());
    // [S F F F]: 75 %.
    expect(breaker.state).toBe('open');
  });

  it('starts empty after a recovery', async () => {
    const breaker = make({ windowCalls: 3, minimumCalls: 2 });
    await call(breaker, failure());
    await call(breaker, failure());
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    await call(breaker, ok());
    expect(breaker.state).toBe('closed');
    await call(breaker, failure());
    // One failure in a fresh window of one call: below minimumCalls.
    expect(breaker.state).toBe('closed');
    breaker.reset();
    await call(breaker, failure());
    expect(breaker.state).toBe('closed');
  });

  it('combines with slow calls and several trials', async () => {
    const breaker = make({
      windowCalls: 2,
      slowCallMs: 50,
      slowCallRatePct: 50,
      permittedCallsInHalfOpen: 2,
    });
    await call(breaker, ok(), 10);
    await call(breaker, ok(), 60);
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(30_000);
    const trials = [admitted(breaker), admitted(breaker)];
    await vi.advanceTimersByTimeAsync(10);
    for (const trial of trials) trial.record(ok());
    expect(breaker.state).toBe('closed');
  });
});
