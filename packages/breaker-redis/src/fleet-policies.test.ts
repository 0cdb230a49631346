// The breaker's policies (slow calls, the count window) run the same on the local breaker and
// on a fleet sharing a real redis-server: the same scenario, the same state after every step.
import {
  type BreakerOptions,
  type BreakerState,
  createToolBreaker,
  type ToolBreaker,
  validateBreakerOptions,
} from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  rawRedisClient,
  redisInstalled,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { MAX_FLEET_TRIALS } from './fleet-slot-scripts.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';

/** One call: its outcome, and whether it takes longer than `slowCallMs`. */
interface Call {
  readonly kind: 'call' | 'trial';
  readonly failed: boolean;
  readonly slow: boolean;
  /** Which process makes it, on the fleet (the local breaker makes every call). */
  readonly by?: 0 | 1;
}

const SLOW_CALL_MS = 50;
// A slow call's run: a timer never fires early, so it is always slower than SLOW_CALL_MS; a
// quick call is recorded in the same tick it was admitted.
const SLOW_RUN_MS = SLOW_CALL_MS + 40;

const fast = (failed = false, by: 0 | 1 = 0): Call => ({
  kind: 'call',
  failed,
  slow: false,
  by,
});
const slowCall = (failed = false, by: 0 | 1 = 0): Call => ({
  kind: 'call',
  failed,
  slow: true,
  by,
});
const trial = (failed: boolean, slow = false): Call => ({
  kind: 'trial',
  failed,
  slow,
});

function responseOf(call: Call): ToolResponse {
  return call.failed
    ? ToolResponse.error('NETWORK_ERROR', 'upstream is down')
    : ToolResponse.success('fine');
}

/** The scenario on one local breaker, under fake timers: its state after every step. */
async function onLocal(
  options: BreakerOptions,
  calls: readonly Call[],
): Promise<BreakerState[]> {
  vi.useFakeTimers();
  const breaker = createToolBreaker('local_tool', {
    ...options,
    telemetry: false,
  });
  const states: BreakerState[] = [];
  try {
    for (const call of calls) {
      if (call.kind === 'trial') {
        await vi.advanceTimersByTimeAsync(options.resetTimeoutMs ?? 0);
      }
      const admission = breaker.admit();
      if (!admission.admitted) throw new Error(`refused: ${breaker.state}`);
      if (call.slow) await vi.advanceTimersByTimeAsync(SLOW_RUN_MS);
      admission.record(responseOf(call));
      states.push(breaker.state);
    }
  } finally {
    breaker.shutdown();
    vi.useRealTimers();
  }
  return states;
}

afterEach(() => {
  vi.useRealTimers();
});

describe.skipIf(!redisInstalled)(
  'the policies on the local breaker and on the Redis store',
  () => {
    const fleet = useRedisFleet('policy_tool');

    /** The scenario on a fleet of `processes`: process 0's state after every step, once all agree. */
    async function onFleet(
      options: BreakerOptions,
      calls: readonly Call[],
      processes = 1,
    ): Promise<BreakerState[]> {
      const tool = fleet.fresh();
      const stores: RedisBreakerStore[] = [];
      const breakers: ToolBreaker[] = [];
      for (let i = 0; i < processes; i++) {
        const store = await fleet.store({ flushIntervalMs: 1 });
        expect(store.usable()).toBe(true);
        stores.push(store);
        breakers.push(
          createToolBreaker(tool, { ...options, store, telemetry: false }),
        );
      }
      const client = await rawRedisClient(fleet.url);
      const states: BreakerState[] = [];
      // One round trip to Redis between looks: no timer, no guess about the store's pace.
      const until = async (done: () => boolean): Promise<void> => {
        while (!done()) await client.ping();
      };
      try {
        for (const call of calls) {
          const index = call.by ?? 0;
          const breaker = breakers[index];
          const store = stores[index];
          if (breaker === undefined || store === undefined) throw new Error();
          let admission = breaker.admit();
          // The trial: the first call the fleet's view finds due.
          while (call.kind === 'trial' && !admission.admitted) {
            await client.ping();
            admission = breaker.admit();
          }
          if (!admission.admitted) throw new Error(`refused: ${breaker.state}`);
          if (call.slow) {
            await new Promise((resolve) => setTimeout(resolve, SLOW_RUN_MS));
          }
          const flushes = store.stats().flushes;
          admission.record(responseOf(call));
          // A call's outcome is in the shared window once its batch is written; a trial's result
          // once the fleet has left half-open.
          if (call.kind === 'call') {
            await until(() => store.stats().flushes > flushes);
          } else {
            await until(() => breaker.state !== 'half_open');
          }
          await until(() => breakers.every((b) => b.state === breaker.state));
          states.push(breaker.state);
        }
      } finally {
        client.destroy();
        for (const breaker of breakers) breaker.shutdown();
      }
      return states;
    }

    it('slow calls open by their rate, a slow trial reopens, a quick one closes', async () => {
      const options: BreakerOptions = {
        slowCallMs: SLOW_CALL_MS,
        slowCallRatePct: 50,
        minimumCalls: 4,
        resetTimeoutMs: 200,
      };
      const calls = [
        fast(),
        slowCall(),
        fast(),
        fast(),
        // 2 slow of 5 (40 %), then 3 of 6: at 50 %, open.
        slowCall(),
        slowCall(),
        trial(false, true),
        trial(false),
        // A fresh window: one slow call of one is below minimumCalls.
        slowCall(),
      ];
      const expected = [
        'closed',
        'closed',
        'closed',
        'closed',
        'closed',
        'open',
        'open',
        'closed',
        'closed',
      ];
      expect(await onLocal(options, calls)).toEqual(expected);
      expect(await onFleet(options, calls)).toEqual(expected);
    }, 60_000);

    it('a count window holds the last N calls of the whole fleet', async () => {
      const options: BreakerOptions = { windowCalls: 4, resetTimeoutMs: 200 };
      const calls = [
        fast(true, 0),
        fast(true, 1),
        fast(false, 0),
        fast(false, 1),
        // [F F S S] 50 %, then [F S S F] and [S S F F]: the oldest drops out, still 50 %.
        fast(true, 0),
        fast(true, 1),
        // [S F F F]: 75 %, open everywhere.
        fast(true, 0),
        trial(false),
        fast(true, 1),
      ];
      const expected = [
        'closed',
        'closed',
        'closed',
        'closed',
        'closed',
        'closed',
        'open',
        'closed',
        'closed',
      ];
      expect(await onLocal(options, calls)).toEqual(expected);
      expect(await onFleet(options, calls, 2)).toEqual(expected);
    }, 60_000);

    it('refuses more half-open calls than the record holds slots for, naming it, before any call', async () => {
      const store = await fleet.store();
      expect(() =>
        createToolBreaker(fleet.fresh(), {
          store,
          permittedCallsInHalfOpen: MAX_FLEET_TRIALS + 1,
        }),
      ).toThrow(TypeError);
      expect(() => {
        validateBreakerOptions({ store, permittedCallsInHalfOpen: 21 });
      }).toThrow(
        /"permittedCallsInHalfOpen" \(21\) is over what the Redis store supports \(20\)/,
      );
      // Up to the cap: taken (fleet-half-open.test.ts runs them).
      for (const permitted of [1, 2, MAX_FLEET_TRIALS]) {
        createToolBreaker(fleet.fresh(), {
          store,
          permittedCallsInHalfOpen: permitted,
        }).shutdown();
      }
    });
  },
);
