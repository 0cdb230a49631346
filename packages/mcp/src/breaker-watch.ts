import { type ToolRegistry } from '@candor/registry';

/** What {@link BreakerWatch} needs. */
export interface BreakerWatchOptions {
  readonly hideOpenCircuits: boolean;
  readonly onChange: () => void;
}

// A breaker's half-open timer and ours are two timers for one instant: when ours fires first,
// look again a little later rather than miss the change.
const RECHECK_MS = 25;
const RECHECKS = 8;

/**
 * Notices breakers that open or close, from the registry's public surface only: after a
 * `tool:end` that can have changed a state (a failure, or any call to a tool last seen open) it
 * compares `health()` with what it saw, and while a breaker is open it looks again
 * when the breaker says a trial call becomes possible (`nextAttemptAt`), because that transition
 * happens on a timer, with no call.
 */
export class BreakerWatch {
  readonly #registry: ToolRegistry;
  readonly #options: BreakerWatchOptions;
  readonly #unsubscribe: () => void;
  #open = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #rechecks = 0;

  constructor(registry: ToolRegistry, options: BreakerWatchOptions) {
    this.#registry = registry;
    this.#options = options;
    this.#unsubscribe = registry.on('tool:end', ({ toolName, outcome }) => {
      // Only a failure opens a breaker, and only a call to a tool last seen open can close it:
      // a success, partial or denial of any other tool changes no state, so it skips health(),
      // which costs a third to a half of a registry call itself (docs/benchmarks.md).
      if (outcome !== 'error' && !this.#open.has(toolName)) {
        return;
      }
      this.#rechecks = 0;
      this.check();
    });
  }

  /** Compares breaker states with the last look; calls `onChange` when one opened or closed. */
  check(): void {
    const snapshots = this.#registry.health();
    const open = new Set(
      snapshots.filter((s) => s.state === 'open').map((s) => s.name),
    );
    const changed =
      open.size !== this.#open.size ||
      [...open].some((name) => !this.#open.has(name));
    this.#open = open;
    this.#arm(snapshots);
    if (changed) this.#options.onChange();
  }

  #arm(snapshots: ReturnType<ToolRegistry['health']>): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // Only a hidden tool's return changes the list without a call.
    if (!this.#options.hideOpenCircuits) return;
    const next = Math.min(
      ...snapshots
        .filter((s) => s.state === 'open' && s.nextAttemptAt !== undefined)
        .map((s) => s.nextAttemptAt ?? Infinity),
    );
    if (!Number.isFinite(next)) return;
    const due = next - Date.now();
    if (due <= 0 && this.#rechecks >= RECHECKS) return;
    if (due <= 0) this.#rechecks += 1;
    this.#timer = setTimeout(
      () => {
        this.check();
      },
      Math.max(due, RECHECK_MS),
    );
    this.#timer.unref();
  }

  /** Stops listening and clears the timer. */
  stop(): void {
    this.#unsubscribe();
    clearTimeout(this.#timer);
  }
}
