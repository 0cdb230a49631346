import { type Logger, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BreakerRegistry } from './breaker-registry.ts';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';

/** A logger whose every method throws; `attempts` counts the lines the breaker tried to write. */
function throwingLogger(): { logger: Logger; attempts: () => number } {
  let attempts = 0;
  const boom = (): never => {
    attempts += 1;
    throw new Error('logger down');
  };
  const logger: Logger = {
    trace: boom,
    debug: boom,
    info: boom,
    warn: boom,
    error: boom,
    child: () => logger,
  };
  return { logger, attempts: () => attempts };
}

const failure = ToolResponse.error('API_ERROR', 'upstream 502');
const created: ToolBreaker[] = [];

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const breaker of created.splice(0)) breaker.shutdown();
  vi.useRealTimers();
});

describe('a logger that throws', () => {
  it('never makes record() throw when it opens the circuit', () => {
    const { logger, attempts } = throwingLogger();
    const breaker = createToolBreaker('flaky', { logger, minimumCalls: 2 });
    created.push(breaker);
    for (let i = 0; i < 2; i += 1) {
      const admission = breaker.admit();
      expect(admission.admitted).toBe(true);
      if (!admission.admitted) return;
      expect(() => {
        admission.record(failure);
      }).not.toThrow();
    }
    expect(breaker.state).toBe('open');
    const refused = breaker.admit();
    expect(refused.admitted).toBe(false);
    expect(attempts()).toBeGreaterThan(0);
  });

  it("leaves execute() the tool's own response, through open, half-open and shutdown", async () => {
    const { logger, attempts } = throwingLogger();
    const breaker = createToolBreaker('flaky', {
      logger,
      minimumCalls: 2,
      resetTimeoutMs: 1_000,
    });
    created.push(breaker);
    await breaker.execute(async () => failure);
    expect(await breaker.execute(async () => failure)).toBe(failure);
    expect(breaker.state).toBe('open');
    // The reset timer moves to half-open and logs it, outside any call.
    await vi.advanceTimersByTimeAsync(1_000);
    const recovered = ToolResponse.success('back');
    expect(await breaker.execute(async () => recovered)).toBe(recovered);
    expect(breaker.state).toBe('closed');
    expect(() => {
      breaker.shutdown();
    }).not.toThrow();
    expect(attempts()).toBeGreaterThan(3);
  });

  it('never makes a BreakerRegistry throw on shutdownAll()', () => {
    const { logger } = throwingLogger();
    const registry = new BreakerRegistry({ logger });
    registry.get('a');
    registry.get('b');
    expect(() => {
      registry.shutdownAll();
    }).not.toThrow();
  });
});
