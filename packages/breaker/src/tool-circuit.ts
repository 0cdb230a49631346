import CircuitBreaker from 'opossum';
import { type ResolvedBreakerOptions } from './breaker-options.ts';
import { bucketTicker } from './bucket-ticker.ts';
import { type FiredOutcome } from './fired-outcome.ts';
import { type LatencyStatus, withoutLatencies } from './without-latencies.ts';

/** What a circuit tells its breaker, from opossum's events. */
export interface CircuitOwner {
  /** opossum counted a failure (before it decides whether to open). */
  failed(error: unknown): void;
  /** opossum opened the circuit. */
  opened(): void;
  /** opossum let a trial call through. */
  halfOpened(): void;
  /** opossum closed the circuit. */
  closed(): void;
}

/** The part of opossum's `Status` that fire() counts a call in as it starts. */
interface StartedCounts {
  /** A copy of the window's bucket list, newest first; the buckets themselves are live. */
  readonly window: readonly { fires: number }[];
}

/** The part of opossum's `Status` that counts an event in the newest bucket. */
interface CountingStatus {
  increment(property: 'successes'): void;
}

/** The arguments of a call opossum is told about without fire(): none, shared by every call. */
export const noArguments: readonly unknown[] = Object.freeze([]);

/**
 * opossum's circuit for one breaker, on the shared rotate controller of its bucket width. It
 * knows its breaker, so the action and the listeners are module-level functions shared by every
 * breaker instead of five closures per tool.
 */
export class ToolCircuit extends CircuitBreaker<[FiredOutcome]> {
  readonly owner: CircuitOwner;
  readonly #bucketWidthMs: number;
  readonly #buckets: number;

  constructor(
    owner: CircuitOwner,
    name: string,
    options: ResolvedBreakerOptions,
  ) {
    const bucketWidthMs = options.windowMs / options.buckets;
    // Shared by every breaker of this bucket width; given back in stop().
    const rotations = bucketTicker.attach(bucketWidthMs);
    super(linkOutcome, {
      name,
      // Off: the call's owner holds its one deadline, so every admitted call is recorded and a
      // hanging trial still ends (see Admission).
      timeout: false,
      resetTimeout: options.resetTimeoutMs,
      rollingCountTimeout: options.windowMs,
      rollingCountBuckets: options.buckets,
      volumeThreshold: options.minimumCalls,
      errorThresholdPercentage: options.failureRatePct,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      rotateBucketController: rotations,
      allowWarmUp: false,
      cache: false,
    });
    this.owner = owner;
    this.#bucketWidthMs = bucketWidthMs;
    this.#buckets = options.buckets;
    withoutLatencies(this.status as unknown as LatencyStatus, rotations);
    // 'failure' is emitted before opossum decides to open, so the reason is known in time.
    this.on('failure', onFailure);
    this.on('open', onOpen);
    this.on('halfOpen', onHalfOpen);
    this.on('close', onClose);
  }

  /** Counts an admitted half-open trial in the window as it ends, as every call is counted. */
  countEnded(): void {
    this.emit('fire', noArguments);
  }

  /**
   * Counts a call a policy (not fire()) admitted, as it ends: in opossum's window only, for the
   * snapshot and the telemetry. A success goes straight to the count, not through the `success`
   * event, whose listener would close a half-open circuit the policy has not decided on.
   */
  countCall(failure: Error | undefined): void {
    this.emit('fire', noArguments);
    if (failure === undefined) {
      (this.status as unknown as CountingStatus).increment('successes');
    } else {
      this.emit('failure', failure, 0, noArguments);
    }
  }

  /** Counts a call a policy refused, as fire() counts one it refuses. */
  countRefusal(): void {
    this.emit('fire', noArguments);
    this.emit('reject');
  }

  /**
   * Takes back the `fire` count that fire() made as it let a half-open trial through, so the trial
   * is counted when it ends, as every call is. fire() counted it in the newest bucket just now,
   * synchronously, so no rotation came in between.
   */
  uncountStart(): void {
    const newest = (this.status as unknown as StartedCounts).window[0];
    if (newest !== undefined) newest.fires -= 1;
  }

  /**
   * Empties this circuit's window. opossum keeps the window across a close, so one failure right
   * after recovery would reopen the breaker; a recovered tool starts from a clean window instead.
   * The rotate controller is shared with other breakers, so this circuit's buckets rotate alone.
   */
  resetWindow(): void {
    const status = this.status as unknown as LatencyStatus;
    for (let i = 0; i < this.#buckets; i++) status.rotateBucket();
  }

  /**
   * Shuts the circuit down for good and gives its bucket width back to the ticker. opossum's
   * shutdown removes its rotate listener and every listener on the circuit, and clears its reset
   * timer. Call once.
   */
  stop(): void {
    this.shutdown();
    bucketTicker.detach(this.#bucketWidthMs);
  }
}

// opossum's types ask for a Promise; it only ever calls then().catch() on the result.
function linkOutcome(outcome: FiredOutcome): Promise<unknown> {
  return outcome.link as unknown as Promise<unknown>;
}

// opossum calls its listeners with the circuit as `this`.
function onFailure(this: ToolCircuit, error: unknown): void {
  this.owner.failed(error);
}

function onOpen(this: ToolCircuit): void {
  this.owner.opened();
}

function onHalfOpen(this: ToolCircuit): void {
  this.owner.halfOpened();
}

function onClose(this: ToolCircuit): void {
  this.owner.closed();
}
