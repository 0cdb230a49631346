// Several half-open trials across real worker processes: with 2 permitted, exactly 2 calls reach
// the recovering upstream at once, from anywhere in the fleet, never a third; their successes
// close every process.
import { once } from 'node:events';
import { createServer, type ServerResponse, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from './__fixtures__/bundle-fixture.ts';
import { redisInstalled } from './__fixtures__/fleet-helpers.ts';
import {
  type WorkerResult as Result,
  FleetWorkerProcess as Worker,
} from './__fixtures__/fleet-worker-process.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

const PERMITTED = 2;

describe.skipIf(!redisInstalled)(
  'several half-open trials across worker processes',
  () => {
    let redis: RedisServer;
    let upstream: Server;
    let upstreamUrl = '';
    let removeBundle = (): void => undefined;
    let workerFile = '';
    let healthy = false;
    /** Requests the recovering upstream holds; answered together once PERMITTED are in. */
    const held: ServerResponse[] = [];
    let most = 0;
    let trialsAnswered = false;
    let reached = 0;
    const workers: Worker[] = [];

    beforeAll(async () => {
      const bundle = await bundleFixture('fleet-worker');
      workerFile = bundle.file;
      removeBundle = bundle.remove;
      redis = await startRedisServer();
      upstream = createServer((_request, response) => {
        reached += 1;
        if (!healthy) {
          response.writeHead(503).end('down');
          return;
        }
        // Once the trials are answered the upstream is plainly up: calls of a closed circuit are
        // not held (an odd one out would wait for a partner until it timed out).
        if (trialsAnswered) {
          response.writeHead(200).end('ok');
          return;
        }
        held.push(response);
        most = Math.max(most, held.length);
        // The trials stay in flight together until both are in, so they run at once; a third
        // call while not closed is what the test counts (it would not be held with them).
        if (held.length === PERMITTED) {
          trialsAnswered = true;
          for (const each of held.splice(0)) each.writeHead(200).end('ok');
        }
      });
      upstream.listen(0, '127.0.0.1');
      await once(upstream, 'listening');
      upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
    });
    afterAll(async () => {
      for (const each of held.splice(0)) each.writeHead(503).end('down');
      await Promise.all(workers.map((worker) => worker.exit()));
      upstream.close();
      await redis.stop();
      removeBundle();
    });

    it('4 processes: exactly 2 trials at once fleet-wide, never 3, and all close', async () => {
      for (const name of ['w1', 'w2', 'w3', 'w4']) {
        workers.push(new Worker(workerFile, name));
      }
      await Promise.all(workers.map((w) => w.next((m) => m.type === 'loaded')));
      const options = {
        redisUrl: redis.url,
        upstreamUrl,
        keyPrefix: 'slots-test:',
        // Long enough that every process is refused while open (so the slots are claimed) and
        // hears of the claims before the trials are due, and that a loaded machine cannot make a
        // claimant miss its turn. Slots nobody claimed go to the first calls that find them free,
        // and there processes racing within one round trip may each run one (docs/fleet.md).
        resetTimeoutMs: 4_000,
        trialClaimMs: 5_000,
        commandTimeoutMs: 1_000,
        permittedCallsInHalfOpen: PERMITTED,
      };
      await Promise.all(workers.map((w) => w.start(options)));
      for (const worker of [...workers, workers[0]]) await worker?.call();
      await Promise.all(workers.map((w) => w.becomes('open')));
      expect(reached).toBe(5);
      healthy = true;
      const closed = Promise.all(workers.map((w) => w.becomes('closed')));
      const done = { closed: false };
      void closed.then(() => {
        done.closed = true;
      });
      // Every process calls in a loop of its own (a trial held by the upstream blocks only its
      // own process), until all are closed; bounded, a backstop far past the 1.5 s reset.
      const giveUp = performance.now() + 20_000;
      const during: (Result & { worker: string })[] = [];
      await Promise.all(
        workers.map(async (worker) => {
          while (!done.closed && performance.now() < giveUp) {
            during.push({ ...(await worker.call()), worker: worker.name });
          }
        }),
      );
      // The premise: every process was refused while open, so both slots were claimed ahead.
      for (const worker of workers) {
        expect(
          during.find((r) => r.worker === worker.name),
          `${worker.name}'s first call`,
        ).toMatchObject({ ran: false, stateBefore: 'open' });
      }
      expect(done.closed, `most at once ${String(most)}`).toBe(true);
      const trials = during.filter((r) => r.ran && r.stateBefore !== 'closed');
      expect(
        trials,
        JSON.stringify(trials.map((r) => [r.worker, r.stateBefore, r.code])),
      ).toHaveLength(PERMITTED);
      expect(trials.map((r) => r.code)).toEqual(Array(PERMITTED).fill('OK'));
      expect(most).toBe(PERMITTED);
      // 5 failures, the 2 trials, then whatever ran once closed.
      expect(reached).toBe(
        5 +
          PERMITTED +
          during.filter((r) => r.ran && r.stateBefore === 'closed').length,
      );
      const after = await Promise.all(workers.map((w) => w.call()));
      expect(after.map((r) => r.code)).toEqual(Array(4).fill('OK'));
    }, 60_000);
  },
);
