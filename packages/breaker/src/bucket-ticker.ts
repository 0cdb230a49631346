import { EventEmitter } from 'node:events';

interface Ticker {
  readonly timer: NodeJS.Timeout;
  /** The one rotate controller every breaker of this width is given (opossum's documented use). */
  readonly controller: EventEmitter;
  /** Breakers attached and not yet detached. */
  breakers: number;
}

// Keyed by bucket width: breakers with the same width share one interval and one emitter, so a
// thousand tools cost one timer instead of two thousand (opossum #799, #809), and no emitter,
// lease or closure of their own (an EventEmitter with its listener table is ~250 bytes a tool).
const tickers = new Map<number, Ticker>();

/**
 * The rotate controller for `bucketWidthMs`; opossum rotates a breaker's window on each
 * `'rotate'` it emits. Starts the width's interval on first use. Each call must be matched by
 * exactly one {@link detach} (a breaker detaches once, from its idempotent shutdown).
 */
function attach(bucketWidthMs: number): EventEmitter {
  let ticker = tickers.get(bucketWidthMs);
  if (ticker === undefined) {
    const controller = new EventEmitter();
    // One listener per breaker of this width, by design: thousands are expected, not a leak.
    controller.setMaxListeners(0);
    const timer = setInterval(() => {
      controller.emit('rotate');
    }, bucketWidthMs);
    timer.unref();
    ticker = { timer, controller, breakers: 0 };
    tickers.set(bucketWidthMs, ticker);
  }
  ticker.breakers += 1;
  return ticker.controller;
}

/** Gives back one {@link attach} of `bucketWidthMs`; stops the interval with the last one. */
function detach(bucketWidthMs: number): void {
  const ticker = tickers.get(bucketWidthMs);
  if (ticker === undefined) return;
  ticker.breakers -= 1;
  if (ticker.breakers > 0) return;
  clearInterval(ticker.timer);
  tickers.delete(bucketWidthMs);
}

/** What the ticker holds right now. */
export interface TickerStats {
  /** Live intervals: at most one per distinct bucket width. */
  readonly intervals: number;
  /** Breakers attached. */
  readonly breakers: number;
}

function stats(): TickerStats {
  let breakers = 0;
  for (const ticker of tickers.values()) breakers += ticker.breakers;
  return { intervals: tickers.size, breakers };
}

/**
 * The module-level bucket ticker: one unref'd `setInterval` and one `'rotate'` emitter per
 * distinct bucket width, shared by every breaker of that width. The emitter allows unlimited
 * listeners (one per breaker), so no MaxListeners warning appears.
 */
export const bucketTicker = { attach, detach, stats };
