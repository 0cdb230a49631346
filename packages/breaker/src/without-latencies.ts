import { type EventEmitter } from 'node:events';

/** The parts of opossum's `Status` used here; @types/opossum does not declare them. */
export interface LatencyStatus {
  /** The function opossum's Status subscribes to its rotate controller. */
  rotateBucket: () => void;
  /** A copy of the window's bucket list, newest first; the buckets themselves are live. */
  readonly window: readonly { latencyTimes: unknown }[];
}

/** Where a bucket's latencies go instead: nowhere. Shared by every breaker. */
const latencySink: { readonly push: (latency: number) => number } =
  Object.freeze({ push: () => 0 });

/**
 * Stops opossum keeping every call's latency. With `rollingPercentilesEnabled: false` opossum
 * never reads them, yet it still pushes each success, failure and timeout latency into the
 * current bucket (opossum 9, `Status#increment`): a busy tool held 8 bytes a call for its whole
 * window (100 000 calls a second over a 60 s window is about 48 MB), and the pushes were a
 * quarter of the breaker's own cost per call. Each bucket's list is swapped for a shared sink
 * now and after every rotation, which goes through the returned function from then on.
 * The counts opossum decides with are untouched.
 */
export function withoutLatencies(
  status: LatencyStatus,
  controller: EventEmitter,
): void {
  for (const bucket of status.window) bucket.latencyTimes = latencySink;
  const rotate = status.rotateBucket;
  const rotateLean = (): void => {
    rotate();
    const newest = status.window[0];
    if (newest !== undefined) newest.latencyTimes = latencySink;
  };
  // Swapped on the Status too: its shutdown removes `status.rotateBucket` from the controller,
  // and the window reset on close calls it.
  controller.removeListener('rotate', rotate);
  status.rotateBucket = rotateLean;
  controller.on('rotate', rotateLean);
}
