/** What {@link SessionPool} keeps: anything that can be closed. */
export interface PooledSession {
  close(): Promise<void>;
}

/** Bounds of a {@link SessionPool}. */
export interface SessionPoolOptions {
  readonly maxSessions: number;
  readonly idleMs: number;
  /** Told about sessions the pool closed itself (evicted or idle), for the log. */
  readonly onEvict?: (id: string, why: 'full' | 'idle') => void;
}

interface Entry<T> {
  readonly session: T;
  /** Requests of this session in progress: a session with one open is never idle. */
  busy: number;
  lastSeen: number;
}

/**
 * The live HTTP sessions, bounded in number and in idle time, so that a flood of `initialize`
 * requests costs at most `maxSessions` sessions: opening one more closes the one idle longest,
 * and a sweep closes sessions idle for `idleMs`. A client whose session was closed gets 404 and,
 * as the MCP spec asks of it, opens a new one.
 */
export class SessionPool<T extends PooledSession> {
  // A Map keeps insertion order: re-inserting on use keeps the least recently used first.
  readonly #entries = new Map<string, Entry<T>>();
  readonly #options: SessionPoolOptions;
  readonly #sweep: NodeJS.Timeout;

  constructor(options: SessionPoolOptions) {
    this.#options = options;
    this.#sweep = setInterval(
      () => {
        this.#closeIdle();
      },
      Math.min(options.idleMs, 60_000),
    );
    // The sweep alone never keeps the process alive.
    this.#sweep.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Adds a session, first closing the least recently used one when the pool is full. */
  add(id: string, session: T): void {
    while (this.#entries.size >= this.#options.maxSessions) {
      const oldest = this.#leastRecentlyUsed();
      if (oldest === undefined) break;
      this.#evict(oldest, 'full');
    }
    this.#entries.set(id, { session, busy: 0, lastSeen: Date.now() });
  }

  /** Forgets a session that closed by itself (a client's DELETE). */
  delete(id: string): void {
    this.#entries.delete(id);
  }

  /**
   * The session for `id`, marked busy until `done` is called (the response closed), or
   * undefined when there is none.
   */
  use(id: string): { session: T; done: () => void } | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    entry.busy += 1;
    entry.lastSeen = Date.now();
    let done = false;
    return {
      session: entry.session,
      done: () => {
        if (done) return;
        done = true;
        entry.busy -= 1;
        entry.lastSeen = Date.now();
      },
    };
  }

  /** Closes every session and stops the sweep. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const sessions = [...this.#entries.values()].map(({ session }) => session);
    this.#entries.clear();
    await Promise.allSettled(sessions.map((session) => session.close()));
  }

  #leastRecentlyUsed(): string | undefined {
    // An idle session goes first; only a pool of busy sessions gives up a busy one.
    let busiest: string | undefined;
    for (const [id, entry] of this.#entries) {
      if (entry.busy === 0) return id;
      busiest ??= id;
    }
    return busiest;
  }

  #closeIdle(): void {
    const cutoff = Date.now() - this.#options.idleMs;
    for (const [id, entry] of this.#entries) {
      if (entry.busy === 0 && entry.lastSeen <= cutoff) this.#evict(id, 'idle');
    }
  }

  #evict(id: string, why: 'full' | 'idle'): void {
    const entry = this.#entries.get(id);
    this.#entries.delete(id);
    if (entry === undefined) return;
    this.#options.onEvict?.(id, why);
    // A session that fails to close is gone from the pool all the same.
    entry.session.close().catch(() => undefined);
  }
}
