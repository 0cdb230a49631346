// Several half-open trials (`permittedCallsInHalfOpen` above 1) on a fleet sharing a real
// redis-server: never more trials at once than permitted fleet-wide, the same close/open decisions
// as the local breaker, and a slot whose holder dies freed with its lease.
import {
  type Admission,
  type BreakerOptions,
  type BreakerState,
  createToolBreaker,
  type ToolBreaker,
} from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  admitOnceFree,
  defaultRules,
  rawRedisClient,
  redisClockPassed,
  redisInstalled,
  redisNow,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import {
  type FleetAdmission,
  type FleetCircuit,
  type FleetRules,
} from './fleet-circuit.ts';
import { fleetKeysFor } from './fleet-keys.ts';
import { slotStartScript } from './fleet-slot-scripts.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';

/** One call: a closed-circuit call, a round's first trial (once due), or a further trial. */
interface Call {
  readonly kind: 'call' | 'first' | 'trial';
  readonly failed: boolean;
  /** Whether it takes longer than `slowCallMs`. */
  readonly slow?: boolean;
  /** Which process makes it, on the fleet. */
  readonly by: 0 | 1;
}

const call = (failed: boolean, by: 0 | 1 = 0): Call => ({
  kind: 'call',
  failed,
  by,
});
const first = (failed: boolean, by: 0 | 1 = 0): Call => ({
  kind: 'first',
  failed,
  by,
});
const trial = (failed: boolean, by: 0 | 1 = 0): Call => ({
  kind: 'trial',
  failed,
  by,
});

const SLOW_CALL_MS = 50;
// A slow call's run: a timer never fires early, so it is always slower than SLOW_CALL_MS.
const SLOW_RUN_MS = SLOW_CALL_MS + 40;

function responseOf(failed: boolean): ToolResponse {
  return failed
    ? ToolResponse.error('NETWORK_ERROR', 'upstream is down')
    : ToolResponse.success('fine');
}

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
    for (const step of calls) {
      if (step.kind === 'first') {
        await vi.advanceTimersByTimeAsync(options.resetTimeoutMs ?? 0);
      }
      const admission = breaker.admit();
      if (!admission.admitted) throw new Error(`refused: ${breaker.state}`);
      if (step.slow === true) await vi.advanceTimersByTimeAsync(SLOW_RUN_MS);
      admission.record(responseOf(step.failed));
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
  'several half-open trials on the Redis store',
  () => {
    const fleet = useRedisFleet('slots_tool');

    /** The scenario on two processes sharing the server: the deciding one's state after every step, once both agree. */
    async function onFleet(
      options: BreakerOptions,
      calls: readonly Call[],
    ): Promise<BreakerState[]> {
      const tool = fleet.fresh();
      const stores: RedisBreakerStore[] = [];
      const breakers: ToolBreaker[] = [];
      for (let i = 0; i < 2; i++) {
        // A process's claims it does not use hold the other back until they run out, and then a
        // margin (a fifth of this) for the clock estimates: wide enough for a loaded machine.
        const store = await fleet.store({
          flushIntervalMs: 1,
          trialClaimMs: 250,
        });
        expect(store.usable()).toBe(true);
        stores.push(store);
        breakers.push(
          createToolBreaker(tool, { ...options, store, telemetry: false }),
        );
      }
      const circuits = stores.map((store) => store.circuit(tool, defaultRules));
      const client = await rawRedisClient(fleet.url);
      // One round trip to Redis between looks: no timer, no guess about the store's pace.
      const until = async (done: () => boolean): Promise<void> => {
        while (!done()) await client.ping();
      };
      const states: BreakerState[] = [];
      try {
        for (const step of calls) {
          const breaker = breakers[step.by];
          const store = stores[step.by];
          const circuit = circuits[step.by];
          if (!breaker || !store || !circuit) throw new Error();
          let admission: Admission | undefined;
          // A trial: the first call this process's view admits (a slot claimed or free).
          for (;;) {
            const answer = breaker.admit();
            if (answer.admitted) {
              admission = answer;
              break;
            }
            if (step.kind === 'call')
              throw new Error(`refused: ${breaker.state}`);
            await client.ping();
          }
          const flushes = store.stats().flushes;
          // The trial's own view (half-open at once) holds the results counted so far.
          const ended = circuit.shared?.trialsEnded ?? 0;
          if (step.slow === true) {
            await new Promise((resolve) => setTimeout(resolve, SLOW_RUN_MS));
          }
          admission.record(responseOf(step.failed));
          if (step.kind === 'call') {
            await until(() => store.stats().flushes > flushes);
          } else {
            // The result is in once the view counts it, or has left half-open.
            await until(
              () =>
                circuit.shared?.state !== 'half_open' ||
                (circuit.shared.trialsEnded ?? 0) > ended,
            );
          }
          await until(() =>
            circuits.every((c) => c.shared?.epoch === circuit.shared?.epoch),
          );
          states.push(breaker.state);
        }
      } finally {
        client.destroy();
        for (const breaker of breakers) breaker.shutdown();
      }
      return states;
    }

    it('decides as the local breaker: N results close, a failure rate at the threshold reopens at once', async () => {
      const options: BreakerOptions = {
        permittedCallsInHalfOpen: 4,
        minimumCalls: 2,
        resetTimeoutMs: 200,
      };
      const calls = [
        call(true, 0),
        call(true, 1),
        // 1 failed of 4 permitted (25 %, under 50 %): the fourth result closes.
        first(false, 0),
        trial(true, 1),
        trial(false, 0),
        trial(false, 1),
        call(true, 1),
        call(true, 0),
        // 2 failed of 4: at 50 %, open at the third result, the fourth slot never used.
        first(true, 1),
        trial(false, 0),
        trial(true, 0),
        first(false, 0),
        trial(false, 1),
        trial(false, 1),
        trial(false, 0),
      ];
      const expected = [
        'closed',
        'open',
        'half_open',
        'half_open',
        'half_open',
        'closed',
        'closed',
        'open',
        'half_open',
        'half_open',
        'open',
        'half_open',
        'half_open',
        'half_open',
        'closed',
      ];
      expect(await onLocal(options, calls)).toEqual(expected);
      expect(await onFleet(options, calls)).toEqual(expected);
    }, 60_000);

    it('decides by the slow rate too: one slow trial of two reopens, two quick ones close', async () => {
      const options: BreakerOptions = {
        permittedCallsInHalfOpen: 2,
        slowCallMs: SLOW_CALL_MS,
        slowCallRatePct: 50,
        minimumCalls: 2,
        resetTimeoutMs: 200,
      };
      const calls = [
        call(true, 0),
        call(true, 1),
        // A slow success: 1 slow of 2 permitted, at 50 %, reopens at once.
        { ...first(false, 1), slow: true },
        first(false, 0),
        trial(false, 1),
      ];
      const expected = ['closed', 'open', 'open', 'half_open', 'closed'];
      expect(await onLocal(options, calls)).toEqual(expected);
      expect(await onFleet(options, calls)).toEqual(expected);
    }, 60_000);

    it('runs exactly N trials at once across four stores, never N + 1, and their successes close all', async () => {
      const permitted = 2;
      const options: BreakerOptions = {
        permittedCallsInHalfOpen: permitted,
        minimumCalls: 2,
        // Generous: every store is refused while open (so the slots are claimed ahead) and hears
        // of the claims long before the trial is due.
        resetTimeoutMs: 3_000,
      };
      const tool = fleet.fresh();
      const breakers: ToolBreaker[] = [];
      const circuits: FleetCircuit[] = [];
      for (let i = 0; i < 4; i++) {
        // A claim good for a second once due: a loaded machine's late call still finds it.
        const store = await fleet.store({ trialClaimMs: 1_000 });
        breakers.push(
          createToolBreaker(tool, { ...options, store, telemetry: false }),
        );
        circuits.push(store.circuit(tool, defaultRules));
      }
      const client = await rawRedisClient(fleet.url);
      try {
        for (const breaker of [breakers[0], breakers[1]]) {
          const admission = breaker?.admit();
          if (admission?.admitted !== true) throw new Error('refused');
          admission.record(responseOf(true));
        }
        await Promise.all(circuits.map((c) => viewBecomes(c, 'open')));
        // Every store calls in rounds; an admitted trial is held running until the end.
        const running: Admission[] = [];
        let most = 0;
        const round = async (): Promise<void> => {
          for (const breaker of breakers) {
            const admission = breaker.admit();
            if (admission.admitted) running.push(admission);
          }
          most = Math.max(most, running.length);
          await client.ping();
        };
        while (running.length < permitted) await round();
        // Every view agrees on the record holding both trials; then more rounds admit nothing.
        await (async () => {
          while (
            !circuits.every(
              (c) =>
                c.shared?.state === 'half_open' &&
                Object.keys(c.shared.trials ?? {}).length === permitted &&
                c.shared.epoch === circuits[0]?.shared?.epoch,
            )
          ) {
            await round();
          }
        })();
        for (let i = 0; i < 30; i++) await round();
        expect(running).toHaveLength(permitted);
        expect(most).toBe(permitted);
        const raw = await client.hGet(fleetKeysFor({}).states, tool);
        expect(
          Object.keys((JSON.parse(String(raw)) as { trials: object }).trials),
        ).toHaveLength(permitted);
        for (const admission of running) admission.record(responseOf(false));
        await Promise.all(circuits.map((c) => viewBecomes(c, 'closed')));
        expect(breakers.map((b) => b.state)).toEqual(Array(4).fill('closed'));
      } finally {
        client.destroy();
        for (const breaker of breakers) breaker.shutdown();
      }
    }, 60_000);

    it('grants exactly N slots to rivals racing for a due trial nobody claimed', async () => {
      const keys = fleetKeysFor({});
      const clients = await Promise.all(
        Array.from({ length: 6 }, () => rawRedisClient(fleet.url)),
      );
      try {
        for (let round = 0; round < 5; round++) {
          const tool = fleet.fresh();
          const now = await redisNow(at(clients, 0));
          await at(clients, 0).hSet(
            keys.states,
            tool,
            JSON.stringify({
              state: 'open',
              epoch: now,
              openedAt: now - 10_000,
            }),
          );
          const grants = await Promise.all(
            clients.map(
              (client, i) =>
                client.sendCommand([
                  'EVAL',
                  slotStartScript.source,
                  '3',
                  keys.states,
                  keys.epochs,
                  keys.lease(tool),
                  keys.channel,
                  `rival-${String(i)}`,
                  tool,
                  '1000',
                  '30000',
                  `rival-${String(i)}#1`,
                  '3',
                ]) as unknown as Promise<[number, string, number]>,
            ),
          );
          expect(grants.filter((reply) => reply[2] === 1)).toHaveLength(3);
          const raw = await at(clients, 0).hGet(keys.states, tool);
          expect(
            Object.keys((JSON.parse(String(raw)) as { trials: object }).trials),
          ).toHaveLength(3);
        }
      } finally {
        for (const client of clients) client.destroy();
      }
    });

    it('a process holds one claim however many of its calls are refused while open', async () => {
      const rules: FleetRules = {
        ...defaultRules,
        minimumCalls: 2,
        resetTimeoutMs: 60_000,
        permittedCallsInHalfOpen: 3,
      };
      const tool = fleet.fresh();
      const a = await fleet.store({ flushIntervalMs: 1 });
      const b = await fleet.store({ flushIntervalMs: 1 });
      const ca = a.circuit(tool, rules);
      const cb = b.circuit(tool, rules);
      for (let i = 0; i < 2; i++) ca.record(ca.admit(), true);
      await Promise.all([viewBecomes(ca, 'open'), viewBecomes(cb, 'open')]);
      const claimed = (c: FleetCircuit) => Object.keys(c.shared?.trials ?? {});
      const client = await rawRedisClient(fleet.url);
      try {
        // Many refusals, each after the last claim request's answer: one claim for the process.
        for (let i = 0; i < 10; i++) {
          expect(ca.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
          await ca.lease();
          await client.ping();
        }
        expect(claimed(ca)).toHaveLength(1);
        // Another process's refusal claims the next slot.
        expect(cb.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
        await cb.lease();
        expect(claimed(cb)).toHaveLength(2);
        const raw = await client.hGet(fleetKeysFor({}).states, tool);
        expect(
          Object.keys((JSON.parse(String(raw)) as { trials: object }).trials),
        ).toHaveLength(2);
      } finally {
        client.destroy();
      }
    });

    it('a trial its view found free but Redis refused leaves the view open, as Redis says', async () => {
      const rules: FleetRules = {
        ...defaultRules,
        minimumCalls: 2,
        resetTimeoutMs: 100,
        permittedCallsInHalfOpen: 2,
      };
      const tool = fleet.fresh();
      const store = await fleet.store({ flushIntervalMs: 1 });
      const circuit = store.circuit(tool, rules);
      for (let i = 0; i < 2; i++) {
        const admission = circuit.admit();
        circuit.record(admission, true);
      }
      await viewBecomes(circuit, 'open');
      const openedAt = circuit.openedAt ?? 0;
      // Due on Redis's clock, past the margin a view without a claim waits (a fifth of
      // trialClaimMs, 5 ms), with no call refused meanwhile (so nothing claimed here)...
      await redisClockPassed(fleet.url, openedAt + rules.resetTimeoutMs + 50);
      // ...when rivals hold both slots, written without a message this process would hear.
      const keys = fleetKeysFor({});
      const client = await rawRedisClient(fleet.url);
      try {
        const now = await redisNow(client);
        await client.hSet(
          keys.states,
          tool,
          JSON.stringify({
            state: 'open',
            epoch: (circuit.shared?.epoch ?? 0) + 1,
            openedAt,
            permitted: 2,
            trials: { 'x#1': now + 60_000, 'y#1': now + 60_000 },
          }),
        );
      } finally {
        client.destroy();
      }
      const admission = circuit.admit();
      expect(admission.kind).toBe('trial');
      expect(circuit.view).toBe('half_open');
      await circuit.lease();
      expect(circuit.view).toBe('open');
      expect(Object.keys(circuit.shared?.trials ?? {})).toEqual(['x#1', 'y#1']);
      // Its result decides nothing; the next call is refused while the rivals' slots live.
      circuit.record(admission, false);
      expect(circuit.admit()).toMatchObject({ kind: 'refuse' });
    });

    it('frees the slot of a holder that died when its lease runs out, and the fleet still recovers', async () => {
      const rules: FleetRules = {
        ...defaultRules,
        minimumCalls: 2,
        resetTimeoutMs: 100,
        leaseMs: 600,
        permittedCallsInHalfOpen: 2,
      };
      const tool = fleet.fresh();
      const a = await fleet.store({ flushIntervalMs: 1 });
      const b = await fleet.store({ flushIntervalMs: 1 });
      const ca = a.circuit(tool, rules);
      const cb = b.circuit(tool, rules);
      for (let i = 0; i < 2; i++) {
        const admission = ca.admit();
        expect(admission.kind).toBe('run');
        ca.record(admission, true);
      }
      await Promise.all([viewBecomes(ca, 'open'), viewBecomes(cb, 'open')]);
      const dead = await grantedTrial(ca, fleet.url);
      const survivor = await grantedTrial(cb, fleet.url);
      // The first holder dies with its trial out: no result is ever written.
      await a.close();
      const held = cb.shared?.trials ?? {};
      expect(Object.keys(held)).toHaveLength(2);
      cb.record(survivor, false);
      const client = await rawRedisClient(fleet.url);
      try {
        await (async () => {
          while (cb.shared?.trialsEnded !== 1) await client.ping();
        })();
        expect(cb.view).toBe('half_open');
        // Only the dead holder's slot is left, and nobody may take it before its lease ends.
        const deadUntil = Math.max(...Object.values(cb.shared?.trials ?? {}));
        const c = await fleet.store();
        const cc = c.circuit(tool, rules);
        const late = await grantedTrial(cc, fleet.url);
        expect(await redisNow(client)).toBeGreaterThanOrEqual(deadUntil);
        expect(Object.keys(cc.shared?.trials ?? {})).not.toContain(dead.token);
        cc.record(late, false);
        await Promise.all([
          viewBecomes(cb, 'closed'),
          viewBecomes(cc, 'closed'),
        ]);
      } finally {
        client.destroy();
      }
    }, 60_000);
  },
);

/**
 * The first trial `circuit` is granted: a call its view admits whose slot Redis then holds (one
 * its view found free a moment early is refused by Redis, and its result decides nothing).
 */
async function grantedTrial(
  circuit: FleetCircuit,
  url: string,
): Promise<Extract<FleetAdmission, { kind: 'trial' }>> {
  for (;;) {
    const admission = await admitOnceFree(circuit, url);
    if (admission.kind !== 'trial') throw new Error(admission.kind);
    await circuit.lease();
    if (circuit.shared?.trials?.[admission.token] !== undefined)
      return admission;
    circuit.record(admission, false);
  }
}

function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`nothing at ${String(index)}`);
  return item;
}
