import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from './__fixtures__/bundle-fixture.ts';
import { redisInstalled } from './__fixtures__/fleet-helpers.ts';
import {
  type WorkerResult as Result,
  FleetWorkerProcess as Worker,
} from './__fixtures__/fleet-worker-process.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

let workerFile = '';
let removeBundle = (): void => undefined;

describe.skipIf(!redisInstalled)('a fleet of real worker processes', () => {
  let redis: RedisServer;
  let upstream: Server;
  let upstreamUrl = '';
  let healthy = false;
  const hits = new Map<string, number>();
  const workers: Worker[] = [];

  beforeAll(async () => {
    const bundle = await bundleFixture('fleet-worker');
    workerFile = bundle.file;
    removeBundle = bundle.remove;
    redis = await startRedisServer();
    upstream = createServer((request, response) => {
      const worker = String(request.headers['x-worker']);
      hits.set(worker, (hits.get(worker) ?? 0) + 1);
      response.writeHead(healthy ? 200 : 503).end(healthy ? 'ok' : 'down');
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await Promise.all(
      workers.map(async (worker) => {
        if (worker.child.exitCode !== null || !worker.child.connected) return;
        const exited = once(worker.child, 'exit');
        worker.child.send({ type: 'exit' });
        await exited;
      }),
    );
    upstream.close();
    await redis.stop();
    removeBundle();
  });

  it('opens in all 4 from one decision, runs one trial, and a fifth process starts open', async () => {
    const names = ['w1', 'w2', 'w3', 'w4', 'w5'];
    for (const name of names) {
      const worker = new Worker(workerFile, name);
      workers.push(worker);
    }
    // Every process is loaded before the fleet starts, so the fifth starts its breaker at once.
    await Promise.all(workers.map((w) => w.next((m) => m.type === 'loaded')));
    const [w1, w2, w3, w4, w5] = workers as [
      Worker,
      Worker,
      Worker,
      Worker,
      Worker,
    ];
    const fleet = [w1, w2, w3, w4];
    // A reset long enough for the fifth process to start before the trial is due, and a claim
    // long enough that a loaded machine cannot make the claimant miss its turn.
    const options = {
      redisUrl: redis.url,
      upstreamUrl,
      resetTimeoutMs: 1_500,
      trialClaimMs: 5_000,
      commandTimeoutMs: 1_000,
    };
    const ready = await Promise.all(fleet.map((w) => w.start(options)));
    expect(ready.map((r) => r.state)).toEqual([
      'closed',
      'closed',
      'closed',
      'closed',
    ]);

    // Five failures spread round-robin: no worker sees 5 calls (2, 1, 1, 1).
    const results: Result[] = [];
    for (const worker of [w1, w2, w3, w4, w1]) {
      results.push(await worker.call());
    }
    expect(results.map((r) => r.code)).toEqual(Array(5).fill('API_ERROR'));
    expect(Object.fromEntries(hits)).toEqual({ w1: 2, w2: 1, w3: 1, w4: 1 });
    const deciding = results[4]?.at ?? 0;
    const opened = await Promise.all(fleet.map((w) => w.becomes('open')));
    const lags = opened.map((change) => change.at - deciding);
    // One decision, carried to every process by the channel: on a quiet machine the lags are a
    // few ms (docs/fleet.md). The bound is a backstop that a loaded 2-core machine still meets;
    // what fails without the shared trip is the origins below (each process would count alone).
    expect(Math.max(...lags), `lags ${lags.join(', ')} ms`).toBeLessThan(2_000);
    expect(opened.filter((c) => c.origin === 'process')).toHaveLength(1);
    expect(opened.filter((c) => c.origin === 'fleet')).toHaveLength(3);

    // Open everywhere: every worker refuses without reaching the upstream.
    const refused = await Promise.all(fleet.map((w) => w.call()));
    expect(refused.map((r) => [r.code, r.ran])).toEqual(
      Array(4).fill(['CIRCUIT_OPEN', false]),
    );

    // A fifth process started now starts open and refuses its first call at once.
    expect((await w5.start(options)).state).toBe('open');
    expect(await w5.call()).toMatchObject({ code: 'CIRCUIT_OPEN', ran: false });
    const all = [...fleet, w5];
    const upstreamHits = [...hits.values()].reduce((a, b) => a + b, 0);
    expect(upstreamHits).toBe(5);

    // The upstream recovers. Calls keep coming from every process; the reset timeout passes on
    // Redis's clock, and exactly one call in the whole fleet is the half-open trial.
    healthy = true;
    const closed = Promise.all(all.map((w) => w.becomes('closed')));
    const done = { closed: false };
    void closed.then(() => {
      done.closed = true;
    });
    const during: Result[] = [];
    // Rounds of calls, each awaiting every answer (no timers), until every process is closed;
    // bounded (a backstop far past the 1.5 s reset), so that a fleet that never recovers fails
    // with what each process saw instead of timing the test out.
    const giveUp = performance.now() + 20_000;
    while (!done.closed && performance.now() < giveUp) {
      during.push(...(await Promise.all(all.map((w) => w.call()))));
    }
    expect(
      done.closed,
      JSON.stringify(all.map((w) => [w.name, w.changes.map((c) => c.to)])),
    ).toBe(true);
    await closed;
    // The trial runs on the call that finds it due: its process's state was still open.
    const trials = during.filter((r) => r.ran && r.stateBefore === 'open');
    expect(trials).toHaveLength(1);
    // Nothing ran while the fleet was open or its trial was out, except that trial.
    expect(
      during.filter((r) => r.ran && r.stateBefore !== 'closed'),
    ).toHaveLength(1);
    expect(during.filter((r) => !r.ran).map((r) => r.code)).toEqual(
      during.filter((r) => !r.ran).map(() => 'CIRCUIT_OPEN'),
    );
    // After the trial: calls flow everywhere.
    const after = await Promise.all(all.map((w) => w.call()));
    expect(after.map((r) => r.code)).toEqual(Array(5).fill('OK'));
  }, 30_000);

  it('the process holding the trial goes quiet (SIGSTOP): the fleet still recovers soon after resetTimeout, never after the lease', async () => {
    healthy = false;
    const quiet = ['q1', 'q2', 'q3', 'q4'].map(
      (name) => new Worker(workerFile, name),
    );
    workers.push(...quiet);
    await Promise.all(quiet.map((w) => w.next((m) => m.type === 'loaded')));
    const [q1, q2, q3, q4] = quiet as [Worker, Worker, Worker, Worker];
    const resetTimeoutMs = 1_000;
    // Each process in its own key space of this server: a fresh fleet with the default claim.
    const options = {
      redisUrl: redis.url,
      upstreamUrl,
      resetTimeoutMs,
      keyPrefix: 'fleet-quiet:',
      commandTimeoutMs: 1_000,
    };
    await Promise.all(quiet.map((w) => w.start(options)));
    for (const worker of [q1, q2, q3, q4, q1]) {
      expect((await worker.call()).code).toBe('API_ERROR');
    }
    const opened = await Promise.all(quiet.map((w) => w.becomes('open')));
    // q1 alone calls while open: its refused call claims the coming trial. Then it goes quiet
    // (a serverless instance frozen between requests) before the trial is due.
    expect(await q1.call()).toMatchObject({ code: 'CIRCUIT_OPEN', ran: false });
    expect(await q1.call()).toMatchObject({ code: 'CIRCUIT_OPEN', ran: false });
    q1.child.kill('SIGSTOP');
    healthy = true;
    const others = [q2, q3, q4];
    const closed = Promise.all(others.map((w) => w.becomes('closed')));
    const done = { closed: false };
    void closed.then(() => {
      done.closed = true;
    });
    const during: Result[] = [];
    // Bounded, so that a fleet that never recovers fails with what each process saw. Before the
    // trial ran on the call that found it due, a quiet claimant held the fleet for its whole
    // lease (31 s with defaults); the recovery bound below is a backstop for a loaded machine,
    // where the quiet-machine figure is resetTimeout plus a few ms.
    const giveUp = performance.now() + 20_000;
    while (!done.closed && performance.now() < giveUp) {
      for (const worker of others) during.push(await worker.call());
    }
    expect(
      done.closed,
      JSON.stringify(quiet.map((w) => [w.name, w.changes.map((c) => c.to)])),
    ).toBe(true);
    const closedAt = await closed;
    // The frozen instance is never thawed: it is reclaimed, as a platform would.
    const reclaimed = once(q1.child, 'exit');
    q1.child.kill('SIGKILL');
    await reclaimed;
    // Measured from when Redis opened the circuit (every process reports the fleet's opening
    // time, one decision), not from when the first process heard of it: the trial is due
    // resetTimeout after that, on Redis's clock, which for this local server is the machine's.
    expect(new Set(opened.map((c) => c.openedAt)).size).toBe(1);
    const openedAt = opened[0]?.openedAt ?? Number.NaN;
    expect(Math.min(...opened.map((c) => c.at))).toBeGreaterThanOrEqual(
      openedAt,
    );
    const recovery = Math.max(...closedAt.map((c) => c.at)) - openedAt;
    expect(
      recovery,
      `recovered ${recovery} ms after opening; ${JSON.stringify(during.filter((r) => r.ran).map((r) => [r.stateBefore, r.at - openedAt]))} ${JSON.stringify(quiet.map((w) => w.changes.map((c) => [c.to, c.origin, c.at - openedAt])))}`,
    ).toBeLessThan(resetTimeoutMs + 2_000);
    // q1's claim held the others back until it ran out: nothing ran before the trial was due.
    const ran = during.filter((r) => r.ran && r.stateBefore !== 'closed');
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(
      ran.every((r) => r.at - openedAt >= resetTimeoutMs),
      `ran ${JSON.stringify(ran.map((r) => [r.stateBefore, r.at - openedAt]))}; ${JSON.stringify(quiet.map((w) => w.changes.map((c) => [c.to, c.origin, c.at - openedAt])))}`,
    ).toBe(true);
  }, 30_000);
});
