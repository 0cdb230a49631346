import { EventEmitter } from 'node:events';

/** One breaker's hold on the shared ticker. */
export interface TickerLease {
  /** The breaker's own emitter; opossum rotates its window on each `'rotate'`. */
  readonly controller: EventEmitter;
  /** Stops ticking this controller; stops the interval when it was the last one. Idempotent. */
  release(): void;
}

interface Ticker {
  readonly timer: NodeJS.Timeout;
  readonly controllers: Set<EventEmitter>;
}

// Keyed by bucket width: breakers with the same width share one interval, so a thousand tools
// cost one timer instead of two thousand (opossum #799, #809).
const tickers = new Map<number, Ticker>();

function attach(bucketWidthMs: number): TickerLease {
  const controller = new EventEmitter();
  let ticker = tickers.get(bucketWidthMs);
  if (ticker === undefined) {
    const controllers = new Set<EventEmitter>();
    const timer = setInterval(() => {
      for (const each of controllers) each.emit('rotate');
    }, bucketWidthMs);
    timer.unref();
    ticker = { timer, controllers };
    tickers.set(bucketWidthMs, ticker);
  }
  const owner = ticker;
  owner.controllers.add(controller);
  return {
    controller,
    release() {
      if (!owner.controllers.delete(controller)) return;
      if (owner.controllers.size === 0) {
        clearInterval(owner.timer);
        if (tickers.get(bucketWidthMs) === owner) tickers.delete(bucketWidthMs);
      }
    },
  };
}

/** What the ticker holds right now. */
export interface TickerStats {
  /** Live intervals: at most one per distinct bucket width. */
  readonly intervals: number;
  /** Breakers being ticked. */
  readonly controllers: number;
}

function stats(): TickerStats {
  let controllers = 0;
  for (const ticker of tickers.values()) controllers += ticker.controllers.size;
  return { intervals: tickers.size, controllers };
}

/**
 * The module-level bucket ticker: one unref'd `setInterval` per distinct bucket width, emitting
 * `'rotate'` on each attached breaker's own controller. Each breaker owns its emitter, so no
 * emitter ever holds more than one rotate listener and no MaxListeners warning appears.
 */
export const bucketTicker = { attach, stats };
