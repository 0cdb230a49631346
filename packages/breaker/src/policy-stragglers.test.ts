// Attacks on the policy layer's promise that a call admitted while closed but ending after the
// circuit left closed decides nothing: a straggler that outlives a whole open → half-open →
// closed round, and a wall clock that steps while a call runs.
import { describe, expect, it, vi } from 'vitest';
import { type Admission } from './admission.ts';
import { failure, ok, useBreakers } from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';
import { type ToolBreaker } from './tool-breaker.ts';

failOnProcessWarnings();

const make = useBreakers();

function admitted(breaker: ToolBreaker): Admission {
  const admission = breaker.admit();
  if (!admission.admitted) throw new Error('refused');
  return admission;
}

describe('a closed call that outlives the circuit leaving closed', () => {
  it('decides nothing in the window of the next closed round', async () => {
    const breaker = make({
      windowCalls: 10,
      minimumCalls: 2,
      failureRatePct: 50,
      resetTimeoutMs: 1_000,
      telemetry: false,
    });
    // Admitted while closed; it hangs through the whole outage.
    const straggler = admitted(breaker);
    admitted(breaker).record(failure());
    admitted(breaker).record(failure());
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe('half_open');
    admitted(breaker).record(ok());
    expect(breaker.state).toBe('closed');
    // The recovered tool starts from a clean window: the straggler belongs to the round before.
    straggler.record(failure());
    admitted(breaker).record(failure());
    // One failure of the new round is under minimumCalls (2): still closed.
    expect(breaker.state).toBe('closed');
  });

  it('a closed call of the same round still counts', () => {
    const breaker = make({
      windowCalls: 10,
      minimumCalls: 2,
      failureRatePct: 50,
      telemetry: false,
    });
    const first = admitted(breaker);
    const second = admitted(breaker);
    first.record(failure());
    expect(breaker.state).toBe('closed');
    second.record(failure());
    expect(breaker.state).toBe('open');
  });
});

describe('slow calls and the wall clock', () => {
  it('a wall clock stepped back an hour does not make a slow call fast', async () => {
    const breaker = make({
      slowCallMs: 100,
      slowCallRatePct: 100,
      minimumCalls: 1,
      telemetry: false,
    });
    const admission = admitted(breaker);
    await vi.advanceTimersByTimeAsync(500);
    // NTP or an operator steps the wall clock back while the call runs.
    vi.setSystemTime(Date.now() - 3_600_000);
    admission.record(ok());
    expect(breaker.state).toBe('open');
  });

  it('a wall clock stepped forward an hour does not make a fast call slow', () => {
    const breaker = make({
      slowCallMs: 100,
      slowCallRatePct: 100,
      minimumCalls: 1,
      telemetry: false,
    });
    const admission = admitted(breaker);
    vi.setSystemTime(Date.now() + 3_600_000);
    admission.record(ok());
    expect(breaker.state).toBe('closed');
  });
});
