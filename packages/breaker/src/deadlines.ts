/** A deadline that can be cancelled before it passes. */
export interface DeadlineHandle {
  /** Forgets the deadline; harmless after it passed or was cancelled. */
  cancel(): void;
}

const lanes = new Map<number, Lane>();

// How late a timer may be before it is taken for dead.
const STALE_MS = 1_000;

class Entry implements DeadlineHandle {
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  readonly lane: Lane;
  readonly at: number;
  readonly onExpire: () => void;

  constructor(lane: Lane, at: number, onExpire: () => void) {
    this.lane = lane;
    this.at = at;
    this.onExpire = onExpire;
  }

  cancel(): void {
    this.lane.remove(this);
  }
}

/**
 * Every pending deadline of one duration. Entries are added in the order they expire (same
 * duration, later start), so the lane is a queue and one timer, armed for its head, serves all.
 */
class Lane {
  head: Entry | undefined = undefined;
  tail: Entry | undefined = undefined;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  armedFor = 0;

  readonly durationMs: number;

  constructor(durationMs: number) {
    this.durationMs = durationMs;
  }

  add(onExpire: () => void): Entry {
    const entry = new Entry(
      this,
      performance.now() + this.durationMs,
      onExpire,
    );
    if (this.tail === undefined) {
      this.head = entry;
    } else {
      entry.prev = this.tail;
      this.tail.next = entry;
    }
    this.tail = entry;
    if (this.timer === undefined) {
      this.#arm(this.head?.at ?? entry.at);
    } else if (performance.now() > this.armedFor + STALE_MS) {
      // A timer long overdue belongs to a timer implementation that was swapped out (fake timers
      // in tests): it will never fire, so arm a live one.
      this.#arm(Math.min(this.head?.at ?? entry.at, entry.at));
    }
    return entry;
  }

  remove(entry: Entry): void {
    const linked = entry.prev !== undefined || this.head === entry;
    if (!linked) return;
    if (entry.prev === undefined) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
    // An empty lane holds no timer, so an idle process can exit.
    if (this.head === undefined) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      lanes.delete(this.durationMs);
    }
  }

  #arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.#expire();
      },
      Math.max(0, Math.ceil(at - performance.now())),
    );
  }

  #expire(): void {
    const now = performance.now();
    let entry = this.head;
    while (entry !== undefined && entry.at <= now) {
      this.remove(entry);
      try {
        entry.onExpire();
      } catch {
        // One expiry's failure must not keep the others from firing.
      }
      entry = this.head;
    }
    if (entry !== undefined && this.timer === undefined) this.#arm(entry.at);
  }
}

/**
 * The shared deadline queue: one timer per distinct duration in use, not one per call. Concurrent
 * calls with the same time limit share their lane's timer; a lane with nothing pending holds no
 * timer.
 */
export const deadlines = {
  /** Calls `onExpire` once `durationMs` has passed, unless cancelled first. */
  add(durationMs: number, onExpire: () => void): DeadlineHandle {
    let lane = lanes.get(durationMs);
    if (lane === undefined) {
      lane = new Lane(durationMs);
      lanes.set(durationMs, lane);
    }
    return lane.add(onExpire);
  },

  /** How many timers are armed now; for tests. */
  armed(): number {
    let count = 0;
    for (const lane of lanes.values()) if (lane.timer !== undefined) count++;
    return count;
  },
} as const;
