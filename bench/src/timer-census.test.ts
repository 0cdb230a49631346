import { afterEach, describe, expect, it } from 'vitest';
import { TimerCensus } from './timer-census.ts';

describe('TimerCensus', () => {
  let census: TimerCensus | undefined;
  afterEach(() => {
    census?.uninstall();
  });

  it('counts timers created and still live, unref-ed ones included', () => {
    census = new TimerCensus().install();
    const kept = setInterval(() => undefined, 60_000);
    kept.unref();
    const cleared = setTimeout(() => undefined, 60_000);
    clearTimeout(cleared);
    expect(census.counts()).toEqual({
      timeoutsCreated: 1,
      intervalsCreated: 1,
      live: 1,
      liveIntervals: 1,
    });
    clearInterval(kept);
    expect(census.counts().live).toBe(0);
  });

  it('forgets a timeout once it has fired', async () => {
    census = new TimerCensus().install();
    await new Promise<void>((resolve) => {
      setTimeout(resolve, 0);
    });
    expect(census.counts()).toMatchObject({ timeoutsCreated: 1, live: 0 });
  });

  it('understands a clear by numeric id', () => {
    census = new TimerCensus().install();
    const timer = setTimeout(() => undefined, 60_000);
    clearTimeout(Number(timer));
    expect(census.counts().live).toBe(0);
  });

  it('puts the original globals back', () => {
    const original = globalThis.setTimeout;
    census = new TimerCensus().install();
    expect(globalThis.setTimeout).not.toBe(original);
    census.uninstall();
    expect(globalThis.setTimeout).toBe(original);
  });

  it('refuses to be installed twice', () => {
    census = new TimerCensus().install();
    expect(() => census?.install()).toThrow('TimerCensus: already installed');
  });
});
