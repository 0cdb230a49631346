// BreakerWatch sees every open and close although it skips health() after calls that cannot
// change a state (the skip is what keeps bench:mcp's per-call cost down).
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { BreakerWatch } from './breaker-watch.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(hideOpenCircuits: boolean) {
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 1_000 },
  });
  let healthy = false;
  registry.register(
    defineTool({
      name: 'upstream',
      description: 'Fails until it is healthy',
      input: z.object({}),
      run: () =>
        healthy
          ? ToolResponse.success('ok')
          : ToolResponse.error('NETWORK_ERROR', 'down'),
    }),
  );
  registry.register(
    defineTool({
      name: 'local',
      description: 'Always works',
      input: z.object({}),
      run: () => ToolResponse.success('ok'),
    }),
  );
  const health = vi.spyOn(registry, 'health');
  const onChange = vi.fn();
  const watch = new BreakerWatch(registry, { hideOpenCircuits, onChange });
  return {
    registry,
    health,
    onChange,
    watch,
    heal: () => {
      healthy = true;
    },
  };
}

describe('BreakerWatch', () => {
  it('skips health() after successes of tools it saw closed', async () => {
    const { registry, health, onChange, watch } = setup(false);
    for (let i = 0; i < 5; i += 1) await registry.call('local', {});
    expect(health).not.toHaveBeenCalled();
    expect(onChange).not.toHaveBeenCalled();
    watch.stop();
  });

  it('sees a breaker open on a failure and close on the successful trial call', async () => {
    const { registry, onChange, watch, heal } = setup(false);
    await registry.call('upstream', {});
    await registry.call('upstream', {});
    expect(registry.health().find((s) => s.name === 'upstream')?.state).toBe(
      'open',
    );
    expect(onChange).toHaveBeenCalledTimes(1);
    // Another tool's success while upstream is open changes nothing and is not looked at.
    await registry.call('local', {});
    expect(onChange).toHaveBeenCalledTimes(1);
    heal();
    await vi.advanceTimersByTimeAsync(1_001);
    // The trial call is a success of a tool last seen open: looked at, and the close seen.
    const trial = await registry.call('upstream', {});
    expect(trial.status).toBe('success');
    expect(registry.health().find((s) => s.name === 'upstream')?.state).toBe(
      'closed',
    );
    expect(onChange).toHaveBeenCalledTimes(2);
    watch.stop();
  });

  it('with hidden open circuits, sees the breaker leave open on its timer, with no call', async () => {
    const { registry, onChange, watch } = setup(true);
    await registry.call('upstream', {});
    await registry.call('upstream', {});
    expect(onChange).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(onChange).toHaveBeenCalledTimes(2);
    watch.stop();
  });
});
