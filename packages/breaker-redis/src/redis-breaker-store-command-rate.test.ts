import { describe, expect, it } from 'vitest';
import {
  defaultRules,
  rawRedisClient,
  redisInstalled,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { type MonitorLine, watchRedis } from './__fixtures__/redis-monitor.ts';
import { generationScript, recordScript } from './fleet-scripts.ts';

const isBeat = (line: MonitorLine): boolean =>
  line.from !== 'lua' &&
  line.args[0]?.toUpperCase() === 'EVALSHA' &&
  line.args[1] === generationScript.sha;

/** Commands clients sent (a script's own commands are not), as MONITOR prints them. */
const sent = (lines: readonly MonitorLine[]): MonitorLine[] =>
  lines.filter((line) => line.from !== 'lua');

/** What a process costs Redis, counted the way MONITOR counts it (see docs/fleet.md, Sizing). */
describe.skipIf(!redisInstalled)('RedisBreakerStore command rate', () => {
  const redis = useRedisFleet('rate_tool');

  it('an idle store sends one command per probeIntervalMs: its heartbeat, nothing else', async () => {
    const monitor = await watchRedis(redis.url);
    try {
      const probeIntervalMs = 100;
      const beats = 10;
      const store = await redis.store({ keyPrefix: 'idle:', probeIntervalMs });
      store.circuit(redis.fresh(), defaultRules);
      // Connected (its first read of the generation is done): the next beat, then `beats` more,
      // counted between them.
      const first = monitor.nth(1, isBeat);
      const last = monitor.nth(beats + 1, isBeat);
      const from = await first;
      const to = await last;
      const between = sent(monitor.lines.slice(from + 1, to + 1));
      expect(store.health).toBe('healthy');
      expect(
        between.map((line) => line.args[0]),
        'one script a beat, no PING beside it',
      ).toEqual(Array.from({ length: beats }, () => 'EVALSHA'));
      // The beats are the probe interval apart on average (on the server's clock): a late timer
      // only widens that. One gap alone can be short on a loaded machine (a beat that Redis or
      // the process ran late is followed by one on time: 33 ms seen with two CPU burners beside
      // the suite), but a store beating twice an interval averages half of it, which fails.
      const times = between.map((line) => line.at);
      const gaps = times.slice(1).map((at, i) => at - (times[i] ?? at));
      const meanGap = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      expect(meanGap, `gaps ${gaps.join(', ')} ms`).toBeGreaterThan(
        probeIntervalMs / 2,
      );
      // The same one command both reads the fleet's generation and reaches this process's own
      // channel, which is how the pub/sub connection is proven alive.
      // (Whether MONITOR prints a script's own commands before or after the script, the lines
      // strictly between the first and the last beat hold `beats` of them.)
      const published = monitor.lines
        .slice(from + 1, to)
        .filter(
          (line) =>
            line.from === 'lua' && line.args[0]?.toUpperCase() === 'PUBLISH',
        );
      expect(published.length).toBe(beats);
      expect(new Set(published.map((line) => line.args[1]))).toEqual(
        new Set([`idle:beat:${store.processId}`]),
      );
    } finally {
      monitor.close();
    }
  });

  it('a busy store batches: 1,000 outcomes over many event-loop turns within one flush interval are one command', async () => {
    const monitor = await watchRedis(redis.url);
    const client = await rawRedisClient(redis.url);
    try {
      // No beat and no timed flush in the window: what is counted is the batching alone.
      const store = await redis.store({
        keyPrefix: 'busy:',
        probeIntervalMs: 60_000,
        flushIntervalMs: 60_000,
        // A loaded machine can miss the 100 ms default, and a store that falls back and
        // resynchronises sends commands that are not the batching this test counts.
        commandTimeoutMs: 1_000,
      });
      const circuit = store.circuit(redis.fresh(), defaultRules);
      const isMark = (line: MonitorLine): boolean =>
        line.args[0]?.toUpperCase() === 'ECHO';
      const opened = monitor.nth(1, isMark);
      const closed = monitor.nth(2, isMark);
      // A server that has not seen the script yet answers NOSCRIPT, and the script is sent once
      // in full: that second command is not what is counted here.
      await client.sendCommand(['SCRIPT', 'LOAD', recordScript.source]);
      await client.sendCommand(['ECHO', 'from']);
      for (let i = 0; i < 1_000; i++) {
        circuit.record(circuit.admit(), false);
        if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      // close() writes what is pending.
      await store.close();
      await client.sendCommand(['ECHO', 'to']);
      const between = sent(
        monitor.lines.slice((await opened) + 1, await closed),
      );
      expect(between.map((line) => [line.args[0], line.args[1]])).toEqual([
        ['EVALSHA', recordScript.sha],
      ]);
    } finally {
      client.destroy();
      monitor.close();
    }
  });
});
