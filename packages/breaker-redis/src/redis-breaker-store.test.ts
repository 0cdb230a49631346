import { describe, expect, it } from 'vitest';
import {
  admitOnceDue,
  admitOnceFree,
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisClockPassed,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { type FleetAdmission, type FleetCircuit } from './fleet-circuit.ts';
import { at, useRedisFleet } from './__fixtures__/redis-fleet.ts';

describe.skipIf(!redisInstalled)('RedisBreakerStore (in-process fleet)', () => {
  const redis = useRedisFleet();
  const { store } = redis;
  const freshTool = redis.fresh;

  const raw = () => rawRedisClient(redis.url);

  /** The trial once it is due: the call that finds it due runs it (see admitOnceDue). */
  async function trialOf(circuit: FleetCircuit): Promise<FleetAdmission> {
    return admitOnceDue(circuit, redis.url);
  }

  it('counts failures spread over processes in one window and opens everywhere', async () => {
    const name = freshTool();
    const fleet = await Promise.all([store(), store(), store()]);
    const circuits = fleet.map((s) => s.circuit(name, defaultRules));
    expect(circuits.map((c) => c.view)).toEqual(['closed', 'closed', 'closed']);
    const opened = Promise.all(circuits.map((c) => viewBecomes(c, 'open')));
    // 2 + 2 + 1 failures: no process alone reaches minimumCalls (5).
    for (const i of [0, 1, 2, 0, 1]) {
      const c = at(circuits, i);
      const admission = c.admit();
      expect(admission.kind, `call on process ${i}`).toBe('run');
      c.record(admission, true);
    }
    await opened;
    const refused = at(circuits, 2).admit();
    expect(refused).toMatchObject({ kind: 'refuse', state: 'open' });
    expect(refused.kind === 'refuse' && refused.retryAfterMs).toBeGreaterThan(
      55_000,
    );
  });

  it('stays closed at a failure rate not strictly above the limit', async () => {
    const name = freshTool();
    const [a, b] = await Promise.all([store(), store()]);
    const ca = a.circuit(name, defaultRules);
    const cb = b.circuit(name, defaultRules);
    // 3 failures in 6 calls is 50 %: not above 50 %.
    for (const [c, failed] of [
      [ca, true],
      [cb, true],
      [ca, true],
      [cb, false],
      [ca, false],
      [cb, false],
    ] as const) {
      c.record(c.admit(), failed);
    }
    await a.close();
    await b.close();
    const check = await store();
    expect(check.circuit(name, defaultRules).view).toBe('closed');
  });

  it('tells where a transition came from: this process or the fleet', async () => {
    const name = freshTool();
    const [a, b] = await Promise.all([store(), store()]);
    const ca = a.circuit(name, { ...defaultRules, minimumCalls: 1 });
    const cb = b.circuit(name, { ...defaultRules, minimumCalls: 1 });
    const seen = new Map<string, string>();
    const done = Promise.all(
      [
        ['a', ca],
        ['b', cb],
      ].map(
        ([label, c]) =>
          new Promise<void>((resolve) => {
            (c as FleetCircuit).onChange((change) => {
              if (change.to !== 'open') return;
              seen.set(label as string, change.origin);
              resolve();
            });
          }),
      ),
    );
    ca.record(ca.admit(), true);
    await done;
    expect(Object.fromEntries(seen)).toEqual({ a: 'process', b: 'fleet' });
  });

  it('a process started while the circuit is open refuses at once', async () => {
    const name = freshTool();
    const first = await store();
    const c = first.circuit(name, { ...defaultRules, minimumCalls: 1 });
    const opened = viewBecomes(c, 'open');
    c.record(c.admit(), true);
    await opened;
    const late = await store();
    const lateCircuit = late.circuit(name, defaultRules);
    expect(lateCircuit.view).toBe('open');
    const admission = lateCircuit.admit();
    // Synchronous: no round trip.
    expect(admission).toMatchObject({ kind: 'refuse', state: 'open' });
  });

  it('lets exactly one trial through fleet-wide: claimed while open, run by the call that finds it due', async () => {
    const name = freshTool();
    // A long claim, so that a loaded machine cannot make the claimant miss its turn.
    const rules = { ...defaultRules, minimumCalls: 1, resetTimeoutMs: 1_000 };
    const fleet = await Promise.all(
      [0, 1, 2, 3].map(() => store({ trialClaimMs: 10_000 })),
    );
    const circuits = fleet.map((s) => s.circuit(name, rules));
    const opened = Promise.all(circuits.map((c) => viewBecomes(c, 'open')));
    at(circuits, 0).record(at(circuits, 0).admit(), true);
    await opened;
    // Calls refused while open: each process asks to claim the coming trial; one is granted.
    const early = circuits.flatMap((c) => [c.admit(), c.admit()]);
    expect(early.every((a) => a.kind === 'refuse')).toBe(true);
    await Promise.all(circuits.map((c) => c.lease()));
    const claimedBy = circuits.map((c) => c.shared?.trialBy);
    expect(new Set(claimedBy).size).toBe(1);
    const holderIndex = fleet.findIndex((s) => s.processId === claimedBy[0]);
    expect(
      holderIndex,
      `claimed by ${String(claimedBy[0])}`,
    ).toBeGreaterThanOrEqual(0);
    const holder = at(circuits, holderIndex);
    // The claimant's first call once due is the trial, without a round trip.
    const trial = await trialOf(holder);
    expect(trial.kind).toBe('trial');
    expect(holder.view).toBe('half_open');
    // Everyone else, asking as often as they like, is refused: one trial in the whole fleet.
    const others = circuits.filter((c) => c !== holder);
    const admissions = others.flatMap((c) => [c.admit(), c.admit(), c.admit()]);
    expect(admissions.filter((a) => a.kind === 'trial')).toHaveLength(0);
    expect(admissions.filter((a) => a.kind === 'refuse')).toHaveLength(9);
    const closed = Promise.all(circuits.map((c) => viewBecomes(c, 'closed')));
    holder.record(trial, false);
    await closed;
    expect(at(others, 0).admit().kind).toBe('run');
  });

  it('a claimant that goes quiet holds the fleet back for the claim only: another call takes the trial', async () => {
    const name = freshTool();
    // Long enough for the claim to be asked for before the trial is due.
    const rules = { ...defaultRules, minimumCalls: 1, resetTimeoutMs: 1_000 };
    // A claim longer than one round trip of admitOnceDue's loop can take on a loaded machine:
    // with 50 ms, a ping held past the claim's end made b's first call once due find the claim
    // already run out (so it took the trial, the second step below, before the first was seen).
    const [a, b] = await Promise.all([
      store({ trialClaimMs: 1_000 }),
      store({ trialClaimMs: 1_000 }),
    ]);
    const ca = a.circuit(name, rules);
    const cb = b.circuit(name, rules);
    const opened = viewBecomes(cb, 'open');
    ca.record(ca.admit(), true);
    await opened;
    // a claims the trial with a refused call, then never calls again.
    expect(ca.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
    await ca.lease();
    expect(ca.shared?.trialBy).toBe(a.processId);
    // Once due, b is refused while a's claim lasts…
    expect(await admitOnceDue(cb, redis.url)).toMatchObject({
      kind: 'refuse',
      state: 'half_open',
    });
    // …then its call is the trial.
    const taken = await admitOnceFree(cb, redis.url);
    expect(taken.kind).toBe('trial');
    const closed = Promise.all([
      viewBecomes(ca, 'closed'),
      viewBecomes(cb, 'closed'),
    ]);
    cb.record(taken, false);
    await closed;
  });

  it('a trial started while another process holds the lease unseen: the view goes back to the store’s, and the next free trial closes', async () => {
    const name = freshTool();
    const rules = { ...defaultRules, minimumCalls: 1, resetTimeoutMs: 1 };
    const s = await store({ keyPrefix: 'unseen:' });
    const c = s.circuit(name, rules);
    const opened = viewBecomes(c, 'open');
    c.record(c.admit(), true);
    await opened;
    // Someone holds the trial without this process having heard of it.
    const client = await raw();
    await client.set(`unseen:lease:${name}`, 'someone-else', {
      expiration: { type: 'PX', value: 300 },
    });
    await redisClockPassed(redis.url, (c.shared?.openedAt ?? 0) + 50);
    const trial = c.admit();
    expect(trial.kind).toBe('trial');
    await c.lease();
    // Denied: not half-open here for the length of a lease, just open as Redis says.
    expect(c.view).toBe('open');
    c.record(trial, false);
    await c.lease();
    expect(c.view).toBe('open');
    // Once that lease runs out, a trial of this process is granted, and it closes the tool.
    for (;;) {
      const next = c.admit();
      expect(next.kind).toBe('trial');
      await c.lease();
      if (c.view === 'half_open') {
        const closed = viewBecomes(c, 'closed');
        c.record(next, false);
        await closed;
        break;
      }
      c.record(next, false);
      await c.lease();
      await client.ping();
    }
    client.destroy();
  });

  it('a failed trial reopens the circuit for everyone', async () => {
    const name = freshTool();
    const rules = { ...defaultRules, minimumCalls: 1, resetTimeoutMs: 1 };
    const [a, b] = await Promise.all([store(), store()]);
    const ca = a.circuit(name, rules);
    const cb = b.circuit(name, rules);
    const opened = viewBecomes(cb, 'open');
    ca.record(ca.admit(), true);
    await opened;
    const trial = await trialOf(ca);
    expect(trial.kind).toBe('trial');
    await viewBecomes(cb, 'half_open');
    const reopened = viewBecomes(cb, 'open');
    ca.record(trial, true);
    await reopened;
    expect(cb.shared?.state).toBe('open');
  });

  it('the trial lease expires when its holder dies, and another process takes it', async () => {
    const name = freshTool();
    const rules = {
      ...defaultRules,
      minimumCalls: 1,
      resetTimeoutMs: 1,
      leaseMs: 50,
    };
    const [a, b] = await Promise.all([store(), store()]);
    const ca = a.circuit(name, rules);
    const cb = b.circuit(name, rules);
    const opened = viewBecomes(cb, 'open');
    ca.record(ca.admit(), true);
    await opened;
    const client = await raw();
    const watcher = client.duplicate();
    watcher.on('error', () => undefined);
    await watcher.connect();
    await client.configSet('notify-keyspace-events', 'Kx');
    const expired = new Promise<void>((resolve) => {
      void watcher.subscribe(
        `__keyspace@0__:candor:breaker:lease:${name}`,
        (event) => {
          if (event === 'expired') resolve();
        },
      );
    });
    expect((await trialOf(ca)).kind).toBe('trial');
    await viewBecomes(cb, 'half_open');
    // The holder dies without a word.
    await a.close();
    await expired;
    // cb's next call once the lease ran out (on its own clock estimate) is the trial.
    const taken = await admitOnceFree(cb, redis.url);
    expect(taken.kind).toBe('trial');
    const closed = viewBecomes(cb, 'closed');
    cb.record(taken, false);
    await closed;
    watcher.destroy();
    client.destroy();
  });

  it('keeps applications apart by key prefix', async () => {
    const name = freshTool();
    const a = await store({ keyPrefix: 'app-a:' });
    const b = await store({ keyPrefix: 'app-b:' });
    const ca = a.circuit(name, { ...defaultRules, minimumCalls: 1 });
    const cb = b.circuit(name, { ...defaultRules, minimumCalls: 1 });
    const opened = viewBecomes(ca, 'open');
    ca.record(ca.admit(), true);
    await opened;
    const client = await raw();
    const keys = await client.keys('*');
    expect(keys.filter((key) => key.startsWith('app-a:'))).not.toEqual([]);
    // b's keys hold its generation only: nothing of a's circuit.
    expect(keys.filter((key) => key.startsWith('app-b:'))).toEqual([
      'app-b:states',
    ]);
    expect(await client.hLen('app-b:states')).toBe(1);
    client.destroy();
    expect(cb.view).toBe('closed');
  });

  it('ignores garbage on the channel and treats a garbage state as local for that tool only', async () => {
    const name = freshTool();
    const other = freshTool();
    const client = await raw();
    await client.hSet('garbage:states', name, '{"state":"open","epoch":"x"}');
    const log = recordingLogger();
    const s = await store({ keyPrefix: 'garbage:', logger: log.logger });
    const bad = s.circuit(name, defaultRules);
    const good = s.circuit(other, defaultRules);
    expect(bad.view).toBe('local');
    expect(bad.admit()).toEqual({ kind: 'local' });
    expect(good.admit()).toEqual({ kind: 'run' });
    await client.publish('garbage:events', 'not json');
    await client.publish(
      'garbage:events',
      JSON.stringify({ tool: other, now: 1, record: { state: 'open' } }),
    );
    // A well-formed message after them proves the garbage was read and dropped.
    await client.publish(
      'garbage:events',
      JSON.stringify({
        tool: other,
        now: Date.now(),
        record: { state: 'open', epoch: Date.now(), openedAt: Date.now() },
      }),
    );
    await viewBecomes(good, 'open');
    expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    client.destroy();
  });

  it('writes only tool names and counts: no call crosses the wire with its data', async () => {
    const name = freshTool();
    const s = await store({ keyPrefix: 'wire:' });
    const c = s.circuit(name, { ...defaultRules, minimumCalls: 3 });
    c.record(c.admit(), true);
    c.record(c.admit(), false);
    await s.close();
    const client = await raw();
    const keys = (await client.keys('wire:*')).sort();
    expect(keys).toEqual(['wire:states', `wire:window:${name}`]);
    const window = await client.hGetAll(`wire:window:${name}`);
    expect(Object.values(window).sort()).toEqual(['1', '2']);
    // The states hold the fleet's generation, a random id, and no record of a closed tool.
    const states = await client.hGetAll('wire:states');
    expect(Object.keys(states)).toEqual(['\u0000generation']);
    expect(Object.values(states)[0]).toMatch(/^[0-9a-f]{16}$/);
    // Every key expires.
    for (const key of keys) expect(await client.pTTL(key)).toBeGreaterThan(0);
    client.destroy();
  });
});
