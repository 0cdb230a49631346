/** What a {@link TimerCensus} has seen since it was installed. */
export interface TimerCounts {
  /** `setTimeout` calls. */
  readonly timeoutsCreated: number;
  /** `setInterval` calls. */
  readonly intervalsCreated: number;
  /** Timers neither cleared nor (for timeouts) fired: unref'd ones included. */
  readonly live: number;
  /** Of {@link live}, how many are intervals. */
  readonly liveIntervals: number;
}

type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * Counts timers by wrapping the global `setTimeout`, `setInterval` and their clear functions.
 * `process.getActiveResourcesInfo()` misses unref'd timers, and libraries unref theirs, so only
 * wrapping sees them all. Install it before the code under test creates any timer.
 */
export class TimerCensus {
  readonly #live = new Map<TimerHandle, 'timeout' | 'interval'>();
  // clearTimeout also accepts the handle's numeric id.
  readonly #byId = new Map<number, TimerHandle>();
  #timeouts = 0;
  #intervals = 0;
  #restore: (() => void) | undefined;

  /** Wraps the globals; throws when this census is installed already. */
  install(): this {
    if (this.#restore !== undefined) {
      throw new Error('TimerCensus: already installed');
    }
    const original = {
      setTimeout: globalThis.setTimeout,
      setInterval: globalThis.setInterval,
      clearTimeout: globalThis.clearTimeout,
      clearInterval: globalThis.clearInterval,
    };
    const forget = (handle: unknown): void => {
      const key = typeof handle === 'number' ? this.#byId.get(handle) : handle;
      if (key === undefined) return;
      this.#live.delete(key as TimerHandle);
      this.#byId.delete(Number(key));
    };
    const track = (
      handle: TimerHandle,
      kind: 'timeout' | 'interval',
    ): TimerHandle => {
      this.#live.set(handle, kind);
      this.#byId.set(Number(handle), handle);
      return handle;
    };
    const wrappedTimeout = (
      callback: (...args: unknown[]) => void,
      delay?: number,
      ...args: unknown[]
    ): TimerHandle => {
      this.#timeouts += 1;
      const handle: TimerHandle = original.setTimeout(
        (...callArgs: unknown[]) => {
          forget(handle);
          callback(...callArgs);
        },
        delay,
        ...args,
      );
      return track(handle, 'timeout');
    };
    const wrappedInterval = (
      callback: (...args: unknown[]) => void,
      delay?: number,
      ...args: unknown[]
    ): TimerHandle => {
      this.#intervals += 1;
      return track(original.setInterval(callback, delay, ...args), 'interval');
    };
    const wrappedClear = (handle?: unknown): void => {
      forget(handle);
      original.clearTimeout(handle as TimerHandle);
    };
    Object.assign(globalThis, {
      setTimeout: Object.assign(wrappedTimeout, original.setTimeout),
      setInterval: Object.assign(wrappedInterval, original.setInterval),
      clearTimeout: wrappedClear,
      clearInterval: wrappedClear,
    });
    this.#restore = () => {
      Object.assign(globalThis, original);
    };
    return this;
  }

  /** The counts so far. */
  counts(): TimerCounts {
    let liveIntervals = 0;
    for (const kind of this.#live.values()) {
      if (kind === 'interval') liveIntervals += 1;
    }
    return {
      timeoutsCreated: this.#timeouts,
      intervalsCreated: this.#intervals,
      live: this.#live.size,
      liveIntervals,
    };
  }

  /** Puts the original globals back. */
  uninstall(): void {
    this.#restore?.();
    this.#restore = undefined;
  }
}
