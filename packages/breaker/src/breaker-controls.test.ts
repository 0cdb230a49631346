// Transitions as events, forceOpen() and enabled:false.
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
