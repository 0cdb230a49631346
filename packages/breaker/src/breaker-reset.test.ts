// reset(): closes an open circuit at once (the caller knows the cause is gone), and what it leaves.
import { describe, expect, it, vi } from 'vitest';
import {
  callWith,
  changesOf,
  codeOf,
  failTimes,
  failure,
  fast,
  ok,
  useBreakers,
} from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const make = useBreakers();

describe('reset()', () => {
  it('closes an open circuit now: the next call runs, one open→closed change, a clean window', async () => {
    const breaker = make(fast);
    const changes = changesOf(breaker);
    await failTimes(breaker, 2);
    expect(breaker.state).toBe('open');
    breaker.reset();
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
    const tool = vi.fn(async () => ok());
    expect((await breaker.execute(tool)).status).toBe('success');
    expect(tool).toHaveBeenCalledTimes(1);
    // One failure after the reset does not reopen it: the old failures are gone.
    await failTimes(breaker, 1);
    expect(breaker.state).toBe('closed');
    expect(changes.map(({ from, to }) => `${from}→${to}`)).toEqual([
      'closed→open',
      'open→closed',
    ]);
    // opossum's half-open timer went with close(): nothing moves 30 s later.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(changes).toHaveLength(2);
  });

  it('closes a half-open circuit, and a closed one only forgets its window', async () => {
    const breaker = make(fast);
    await failTimes(breaker, 2);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(breaker.state).toBe('half_open');
    breaker.reset();
    expect(breaker.state).toBe('closed');
    await failTimes(breaker, 1);
    expect(breaker.snapshot().window).toMatchObject({ failures: 1 });
    const changes = changesOf(breaker);
    breaker.reset();
    expect(breaker.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
    await failTimes(breaker, 1);
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual([]);
  });

  it('counts a half-open trial still in flight at the reset as it ends, in the new window', async () => {
    const breaker = make(fast);
    await failTimes(breaker, 2);
    await vi.advanceTimersByTimeAsync(30_000);
    const trial = breaker.admit();
    if (!trial.admitted) throw new Error('the trial was refused');
    breaker.reset();
    trial.record(failure());
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
  });

  it('keeps forceOpen() holds and a shut-down breaker as they are; disabled is a no-op', async () => {
    const breaker = make(fast);
    const hold = breaker.forceOpen();
    breaker.reset();
    expect(codeOf(await callWith(breaker, ok()))).toBe('CIRCUIT_OPEN');
    hold.release();
    expect(breaker.state).toBe('closed');
    breaker.shutdown();
    breaker.reset();
    expect(breaker.state).toBe('shutdown');
    const disabled = make({ enabled: false });
    disabled.reset();
    expect(disabled.state).toBe('disabled');
  });
});
