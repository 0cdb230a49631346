// The circuit's recovery through opossum: open, the half-open trial, and closed again.
import { type ToolResponse } from '@candor/tools';
import { describe, expect, it, vi } from 'vitest';
import { type ToolBreaker } from './tool-breaker.ts';
import {
  callWith,
  changesOf,
  codeOf,
  deferred,
  failTimes,
  failure,
  fast,
  ok,
  retryAfterOf,
  useBreakers,
} from './__fixtures__/breaker-calls.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const make = useBreakers();

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
