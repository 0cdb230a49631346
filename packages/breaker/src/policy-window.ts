import { type EventEmitter } from 'node:events';
import { bucketTicker } from './bucket-ticker.ts';

/**
 * The window a breaker with policies decides from: calls that ended, failures among them, slow
 * calls among them. Totals are kept as calls are added and dropped (resilience4j's
 * subtract-on-evict), so reading them costs nothing.
 */
export interface PolicyWindow {
  readonly calls: number;
  readonly failures: number;
  readonly slow: number;
  /** Counts one call that ended. */
  add(failed: boolean, slow: boolean): void;
  /** Forgets every call (the circuit closed, or was reset). */
  clear(): void;
  /** Gives back any timer it shares. Call once. */
  stop(): void;
}

const FAILED = 1;
const SLOW = 2;

/** The last `size` calls, however old (resilience4j's `COUNT_BASED`): a ring of one byte a call. */
export class CountWindow implements PolicyWindow {
  calls = 0;
  failures = 0;
  slow = 0;
  readonly #ring: Uint8Array;
  #next = 0;

  constructor(size: number) {
    this.#ring = new Uint8Array(size);
  }

  add(failed: boolean, slow: boolean): void {
    const ring = this.#ring;
    const at = this.#next;
    if (this.calls === ring.length) {
      // Full: the oldest call (where the next one goes) drops out.
      const oldest = ring[at] ?? 0;
      if ((oldest & FAILED) !== 0) this.failures -= 1;
      if ((oldest & SLOW) !== 0) this.slow -= 1;
    } else {
      this.calls += 1;
    }
    ring[at] = (failed ? FAILED : 0) | (slow ? SLOW : 0);
    if (failed) this.failures += 1;
    if (slow) this.slow += 1;
    this.#next = at + 1 === ring.length ? 0 : at + 1;
  }

  clear(): void {
    // The ring's old bytes are never read again: it fills from the start before anything drops.
    this.calls = 0;
    this.failures = 0;
    this.slow = 0;
    this.#next = 0;
  }

  stop(): void {
    // Nothing shared.
  }
}

/**
 * The last `windowMs` in `buckets` buckets, rotated by the same shared ticker (and on the same
 * tick) as opossum's own window of the breaker, so both drop the same calls at the same time.
 */
export class TimeWindow implements PolicyWindow {
  calls = 0;
  failures = 0;
  slow = 0;
  readonly #calls: Uint32Array;
  readonly #failures: Uint32Array;
  readonly #slow: Uint32Array;
  #head = 0;
  readonly #widthMs: number;
  readonly #ticker: EventEmitter;
  readonly #rotate = (): void => {
    this.#drop();
  };

  constructor(windowMs: number, buckets: number) {
    this.#calls = new Uint32Array(buckets);
    this.#failures = new Uint32Array(buckets);
    this.#slow = new Uint32Array(buckets);
    this.#widthMs = windowMs / buckets;
    this.#ticker = bucketTicker.attach(this.#widthMs);
    this.#ticker.on('rotate', this.#rotate);
  }

  add(failed: boolean, slow: boolean): void {
    const head = this.#head;
    this.calls += 1;
    this.#calls[head] = (this.#calls[head] ?? 0) + 1;
    if (failed) {
      this.failures += 1;
      this.#failures[head] = (this.#failures[head] ?? 0) + 1;
    }
    if (slow) {
      this.slow += 1;
      this.#slow[head] = (this.#slow[head] ?? 0) + 1;
    }
  }

  /** A new bucket starts; the oldest one drops out. */
  #drop(): void {
    const next = this.#head + 1 === this.#calls.length ? 0 : this.#head + 1;
    this.calls -= this.#calls[next] ?? 0;
    this.failures -= this.#failures[next] ?? 0;
    this.slow -= this.#slow[next] ?? 0;
    this.#calls[next] = 0;
    this.#failures[next] = 0;
    this.#slow[next] = 0;
    this.#head = next;
  }

  clear(): void {
    this.#calls.fill(0);
    this.#failures.fill(0);
    this.#slow.fill(0);
    this.calls = 0;
    this.failures = 0;
    this.slow = 0;
  }

  stop(): void {
    this.#ticker.removeListener('rotate', this.#rotate);
    bucketTicker.detach(this.#widthMs);
  }
}
