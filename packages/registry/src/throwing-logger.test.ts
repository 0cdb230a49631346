import { throwingLogger, throwingProxy } from '@candor/hostile-fixtures';
import { type Logger, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolRegistry } from './tool-registry.ts';

/** A Proxy whose every read throws, child included. */
const hostileProxy = throwingProxy().logger;

describe('a logger that throws never changes a call', () => {
  let registry: ToolRegistry | undefined;
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    registry?.shutdown();
    registry = undefined;
    vi.useRealTimers();
  });

  it('gives the tool its own response for success, error and the call that opens the breaker', async () => {
    const { logger, attempts } = throwingLogger();
    registry = new ToolRegistry({
      logger,
      breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 1000 },
    });
    registry.register(() => 'ok', { name: 'ok' });
    registry.register(() => ToolResponse.error('API_ERROR', 'upstream 502'), {
      name: 'flaky',
    });
    registry.on('tool:end', () => {
      throw new Error('listener bug, logged');
    });

    const ok = await registry.call('ok', {});
    expect(ok.status).toBe('success');
    expect(ok.text).toBe('ok');

    const first = await registry.call('flaky', {});
    expect(first.status === 'error' && first.errorInfo.code).toBe('API_ERROR');
    // The second failure opens the circuit, which logs the state change.
    const opening = await registry.call('flaky', {});
    expect(opening.status === 'error' && opening.errorInfo.code).toBe(
      'API_ERROR',
    );
    expect(opening.text).toContain('upstream 502');
    expect(registry.health()).toContainEqual(
      expect.objectContaining({ name: 'flaky', state: 'open' }),
    );
    const refused = await registry.call('flaky', {});
    expect(refused.status === 'error' && refused.errorInfo.code).toBe(
      'CIRCUIT_OPEN',
    );
    // Past the reset timeout (a timer logs half-open) the trial runs, fails, and reopens.
    vi.advanceTimersByTime(1000);
    const trial = await registry.call('flaky', {});
    expect(trial.status === 'error' && trial.errorInfo.code).toBe('API_ERROR');

    const shutDown = registry;
    registry = undefined;
    expect(() => {
      shutDown.shutdown();
    }).not.toThrow();
    // The registry did try to log: the guarantee was exercised, not skipped.
    expect(attempts()).toBeGreaterThan(5);
  });

  it('survives a Proxy logger whose every read throws', async () => {
    registry = new ToolRegistry({
      logger: hostileProxy,
      breaker: { minimumCalls: 2, failureRatePct: 50 },
    });
    registry.register(() => ToolResponse.error('API_ERROR', 'down'), {
      name: 'down',
    });
    for (let i = 0; i < 3; i += 1) {
      const response = await registry.call('down', {});
      expect(response.status).toBe('error');
    }
    expect(registry.health()).toContainEqual(
      expect.objectContaining({ name: 'down', state: 'open' }),
    );
    const shutDown = registry;
    registry = undefined;
    expect(() => {
      shutDown.shutdown();
    }).not.toThrow();
  });

  it("takes the same Proxy as the breakers' logger, for every tool or for one", async () => {
    registry = new ToolRegistry({
      breaker: { logger: hostileProxy, minimumCalls: 2, failureRatePct: 50 },
    });
    registry.register(() => ToolResponse.error('API_ERROR', 'down'), {
      name: 'down',
    });
    registry.register(() => ToolResponse.error('API_ERROR', 'down'), {
      name: 'own',
      breaker: { logger: hostileProxy, minimumCalls: 2 },
    });
    for (const name of ['down', 'own']) {
      for (let i = 0; i < 2; i += 1) {
        const response = await registry.call(name, {});
        expect(response.status === 'error' && response.errorInfo.code).toBe(
          'API_ERROR',
        );
      }
      const refused = await registry.call(name, {});
      expect(refused.status === 'error' && refused.errorInfo.code).toBe(
        'CIRCUIT_OPEN',
      );
    }
    const shutDown = registry;
    registry = undefined;
    expect(() => {
      shutDown.shutdown();
    }).not.toThrow();
  });
});

describe('a logger that re-enters the registry never changes a call', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers each call with its own response when the logger calls the registry and shuts it down', async () => {
    vi.useFakeTimers();
    const inner: Promise<ToolResponse>[] = [];
    const messages: string[] = [];
    // Set once built: the logger reaches the registry through it.
    const ref: { registry?: ToolRegistry } = {};
    const reenter = (_fields: object, message?: string): void => {
      messages.push(message ?? '');
      const registry = ref.registry;
      if (registry === undefined) return;
      // Re-enters the same tool while its breaker is mid-transition, then ends the registry.
      if (message === 'circuit opened: calls are refused') {
        inner.push(registry.call('flaky', {}));
        registry.shutdown();
      }
      if (message === 'tool call failed' && inner.length === 0) {
        inner.push(registry.call('ok', {}));
      }
      throw new Error('and then the logger throws');
    };
    const logger: Logger = {
      trace: reenter,
      debug: reenter,
      info: reenter,
      warn: reenter,
      error: reenter,
      child: () => logger,
    };
    const registry = new ToolRegistry({
      logger,
      breaker: { minimumCalls: 2, failureRatePct: 50 },
    });
    ref.registry = registry;
    registry.register(() => 'ok', { name: 'ok' });
    registry.register(() => ToolResponse.error('API_ERROR', 'upstream 502'), {
      name: 'flaky',
    });
    const first = await registry.call('flaky', {});
    expect(first.status === 'error' && first.errorInfo.code).toBe('API_ERROR');
    // The second failure opens the circuit; the logger re-enters and shuts the registry down.
    const opening = await registry.call('flaky', {});
    expect(opening.status === 'error' && opening.errorInfo.code).toBe(
      'API_ERROR',
    );
    expect(messages).toContain('circuit opened: calls are refused');
    const settled = await Promise.all(inner);
    expect(settled[0]?.status).toBe('success');
    expect(settled[0]?.text).toBe('ok');
    // The call made from inside the transition is refused or answered as shut down, not thrown.
    expect(settled[1]?.status).toBe('error');
    const after = await registry.call('ok', {});
    expect(after.status).toBe('error');
    expect(() => {
      registry.shutdown();
    }).not.toThrow();
  });
});
