import {
  throwingGetters,
  throwingLogger,
  throwingProxy,
} from '@candor/hostile-fixtures';
import { type Logger, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BreakerRegistry } from './breaker-registry.ts';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

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

describe.each([
  ['whose getters throw', throwingGetters],
  ['that is a Proxy whose reads throw', throwingProxy],
])('a logger %s', (_, make) => {
  it('is taken by createToolBreaker, and the breaker still opens and answers', async () => {
    const { logger, reads } = make();
    const breaker = createToolBreaker('flaky', { logger, minimumCalls: 2 });
    created.push(breaker);
    expect(await breaker.execute(async () => failure)).toBe(failure);
    expect(await breaker.execute(async () => failure)).toBe(failure);
    expect(breaker.state).toBe('open');
    expect(breaker.admit().admitted).toBe(false);
    expect(() => {
      breaker.shutdown();
    }).not.toThrow();
    // The breaker did try to log, through the guard: the reads failed and were dropped.
    expect(reads()).toBeGreaterThan(6);
  });

  it('is taken by a BreakerRegistry, as a default and as an override', () => {
    const { logger } = make();
    const registry = new BreakerRegistry({ logger });
    const fromDefaults = registry.get('a');
    const fromOverride = new BreakerRegistry().get('b', { logger });
    created.push(fromOverride);
    for (const breaker of [fromDefaults, fromOverride]) {
      const admission = breaker.admit();
      expect(admission.admitted).toBe(true);
      if (admission.admitted) admission.record(failure);
    }
    expect(() => {
      registry.shutdownAll();
    }).not.toThrow();
  });
});

it('still refuses a logger that lacks a method, naming the option', () => {
  expect(() =>
    createToolBreaker('t', {
      logger: { info: () => undefined } as unknown as Logger,
    }),
  ).toThrow(
    new TypeError(
      'Breaker option "logger" must be a pino-compatible logger; it lacks trace, debug, warn, error, child',
    ),
  );
});
