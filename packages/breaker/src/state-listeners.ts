import { describeThrown } from '@candor/errors';
import { type Logger } from '@candor/tools';
import { type StateChange } from './state-change.ts';

/** The listeners of one breaker's transitions. Made on first subscription: most have none. */
export class StateListeners {
  readonly #listeners = new Set<(change: StateChange) => void>();

  /** Subscribes `listener`; returns its unsubscribe function. */
  add(listener: (change: StateChange) => void): () => void {
    if (typeof listener !== 'function') {
      throw new TypeError(
        `onStateChange() needs a listener function, got ${typeof listener}`,
      );
    }
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry = (change: StateChange): void => {
      listener(change);
    };
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Tells every listener subscribed now; one that throws is logged and the rest still hear. */
  notify(change: StateChange, logger: Logger): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error: unknown) {
        // A listener's bug must never break the call that caused the transition.
        logger.error(
          { from: change.from, to: change.to, error: describeThrown(error) },
          'state-change listener threw',
        );
      }
    }
  }

  /** Drops every listener. */
  clear(): void {
    this.#listeners.clear();
  }
}
