import { EventEmitter } from 'node:events';
import CircuitBreaker from 'opossum';
import { describe, expect, it } from 'vitest';
import { type LatencyStatus, withoutLatencies } from './without-latencies.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

function circuit(controller: EventEmitter): CircuitBreaker<[boolean]> {
  return new CircuitBreaker(
    (fail: boolean) =>
      fail ? Promise.reject(new Error('no')) : Promise.resolve(1),
    {
      timeout: false,
      rollingCountTimeout: 6_000,
      rollingCountBuckets: 6,
      volumeThreshold: 1_000,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      rotateBucketController: controller,
    },
  );
}

function statusOf(breaker: CircuitBreaker<[boolean]>): LatencyStatus {
  return breaker.status as unknown as LatencyStatus;
}

async function fire(
  breaker: CircuitBreaker<[boolean]>,
  fail: boolean,
  times: number,
): Promise<void> {
  for (let i = 0; i < times; i++)
    await breaker.fire(fail).catch(() => undefined);
}

/** The latencies the window's buckets hold: what opossum kept. */
function latenciesHeld(breaker: CircuitBreaker<[boolean]>): number {
  return statusOf(breaker).window.reduce(
    (sum, bucket) =>
      sum +
      (Array.isArray(bucket.latencyTimes) ? bucket.latencyTimes.length : 0),
    0,
  );
}

describe('withoutLatencies', () => {
  it('opossum alone keeps every latency with percentiles off (why this exists)', async () => {
    const controller = new EventEmitter();
    const plain = circuit(controller);
    await fire(plain, false, 30);
    expect(latenciesHeld(plain)).toBe(30);
    plain.shutdown();
  });

  it('keeps no latency, through rotations and window resets, and the counts stay exact', async () => {
    const controller = new EventEmitter();
    const lean = circuit(controller);
    withoutLatencies(statusOf(lean), controller);
    await fire(lean, false, 40);
    await fire(lean, true, 10);
    controller.emit('rotate');
    await fire(lean, false, 5);
    // The breaker's own window reset rotates through the Status, not the controller.
    expect(latenciesHeld(lean)).toBe(0);
    expect(lean.stats).toMatchObject({
      fires: 55,
      successes: 45,
      failures: 10,
    });
    for (let i = 0; i < 6; i++) statusOf(lean).rotateBucket();
    await fire(lean, true, 3);
    expect(latenciesHeld(lean)).toBe(0);
    expect(lean.stats).toMatchObject({ fires: 3, successes: 0, failures: 3 });
    expect(controller.listenerCount('rotate')).toBe(1);
    lean.shutdown();
    // opossum's shutdown finds the swapped listener and removes it: nothing is left behind.
    expect(controller.listenerCount('rotate')).toBe(0);
  });

  it('rotates only the breaker it was given on a shared controller', async () => {
    const controller = new EventEmitter();
    const a = circuit(controller);
    const b = circuit(controller);
    withoutLatencies(statusOf(a), controller);
    withoutLatencies(statusOf(b), controller);
    await fire(a, true, 4);
    await fire(b, true, 2);
    for (let i = 0; i < 6; i++) statusOf(a).rotateBucket();
    expect(a.stats.failures).toBe(0);
    expect(b.stats.failures).toBe(2);
    for (let i = 0; i < 6; i++) controller.emit('rotate');
    expect(b.stats.failures).toBe(0);
    a.shutdown();
    b.shutdown();
  });
});
