// Attacks on the policy layer: a closed call that outlives the circuit leaving closed (a whole
// open → half-open → closed round, or ending mid-round), and a wall clock that steps while a
// call runs.
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
  // resilience4j records a call in the state it ends in, and the fleet's shared window counts it
  // at its next write: a straggler of the round before an outage counts in the recovered window.
  // Pinned here so the local breaker keeps agreeing with both (see README, Policies).
  it('counts in the window of the next closed round, as resilience4j and the fleet do', async () => {
    const breaker = make({
      windowCalls: 10,
      minimumCalls: 2,
      failureRatePct: 50,
      resetTimeoutMs: 1_000,
      telemetry: false,
    });
    const straggler = admitted(breaker);
    admitted(breaker).record(failure());
    admitted(breaker).record(failure());
    expect(breaker.state).toBe('open');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe('half_open');
    admitted(breaker).record(ok());
    expect(breaker.state).toBe('closed');
    straggler.record(failure());
    expect(breaker.state).toBe('closed');
    admitted(breaker).record(failure());
    expect(breaker.state).toBe('open');
  });

  it('ending while half-open, it decides nothing', async () => {
    const breaker = make({
      windowCalls: 10,
      minimumCalls: 2,
      failureRatePct: 50,
      resetTimeoutMs: 1_000,
      telemetry: false,
    });
    const straggler = admitted(breaker);
    admitted(breaker).record(failure());
    admitted(breaker).record(failure());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe('half_open');
    const trial = admitted(breaker);
    straggler.record(failure());
    expect(breaker.state).toBe('half_open');
    trial.record(ok());
    expect(breaker.state).toBe('closed');
  });

  it('a reset of a closed circuit: a call in flight is counted as it ends', () => {
    const breaker = make({
      windowCalls: 10,
      minimumCalls: 2,
      failureRatePct: 50,
      telemetry: false,
    });
    const inFlight = admitted(breaker);
    breaker.reset();
    inFlight.record(failure());
    admitted(breaker).record(failure());
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
