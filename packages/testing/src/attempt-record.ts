import type {
  Attempt,
  AttemptDisposition,
  AttemptOutcome,
  StreamController,
} from './attempt.ts';
import type { Provider } from './provider-protocol.ts';

interface SentWaiter {
  readonly n: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** What the server knows about a request when its journal entry is created. */
export interface AttemptStart {
  readonly number: number;
  readonly provider: Provider | undefined;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly destroySocket: () => void;
}

/**
 * The server's mutable side of a journal entry. Tests only ever see it as an {@link Attempt}.
 */
export class AttemptRecord implements Attempt {
  readonly number: number;
  readonly provider: Provider | undefined;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly settled: Promise<AttemptOutcome>;
  readonly stream: StreamController;
  disposition: AttemptDisposition = 'matched';
  reason: string | undefined;
  conversation: string | undefined;
  step: string | undefined;
  stepAttempt: number | undefined;
  consumed = true;
  status: number | undefined;
  readonly frames: string[] = [];
  readonly writes: number[] = [];
  outcome: AttemptOutcome | undefined;
  /** Set when the server itself destroyed the socket. */
  serverAborted = false;

  #stallRequested = false;
  #isStalled = false;
  #resumers: (() => void)[] = [];
  #stallWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #sentWaiters: SentWaiter[] = [];
  #resolveSettled: (outcome: AttemptOutcome) => void = () => undefined;
  readonly #destroySocket: () => void;

  constructor(start: AttemptStart) {
    this.number = start.number;
    this.provider = start.provider;
    this.method = start.method;
    this.path = start.path;
    this.headers = start.headers;
    this.body = start.body;
    this.#destroySocket = start.destroySocket;
    this.settled = new Promise((resolve) => {
      this.#resolveSettled = resolve;
    });
    this.stream = {
      sent: (n) => this.#waitSent(n),
      stalled: () => this.#waitStalled(),
      stall: () => {
        this.#stallRequested = true;
      },
      resume: () => {
        this.#resume();
      },
      abort: () => {
        this.abort();
      },
    };
  }

  get framesSent(): number {
    return this.frames.length;
  }

  get isStalled(): boolean {
    return this.#isStalled;
  }

  /** Destroys the socket as a server-side abort. */
  abort(): void {
    if (this.outcome !== undefined) {
      return;
    }
    this.serverAborted = true;
    this.#destroySocket();
    this.#resume();
  }

  /** Registers a callback that `resume()` runs; used to cut a scripted delay short. */
  onResume(callback: () => void): void {
    this.#resumers.push(callback);
  }

  /** Called before every write: parks the writer while a stall is requested. */
  async gate(): Promise<void> {
    if (!this.#stallRequested || this.outcome !== undefined) {
      return;
    }
    this.#isStalled = true;
    for (const waiter of this.#stallWaiters.splice(0)) {
      waiter.resolve();
    }
    await new Promise<void>((resolve) => {
      this.#resumers.push(resolve);
    });
  }

  /** Requests a stall at the next gate (a scripted stall fault). */
  requestStall(): void {
    this.#stallRequested = true;
  }

  recordWrite(bytes: number, completedFrames: readonly string[]): void {
    this.writes.push(bytes);
    this.frames.push(...completedFrames);
    const pending: SentWaiter[] = [];
    for (const waiter of this.#sentWaiters) {
      if (this.frames.length >= waiter.n) {
        waiter.resolve();
      } else {
        pending.push(waiter);
      }
    }
    this.#sentWaiters = pending;
  }

  settle(outcome: AttemptOutcome): void {
    if (this.outcome !== undefined) {
      return;
    }
    this.outcome = outcome;
    for (const waiter of this.#sentWaiters.splice(0)) {
      waiter.reject(
        new Error(
          `attempt ${this.number} ended (${outcome}) after ${this.frames.length} of ${waiter.n} frames`,
        ),
      );
    }
    for (const waiter of this.#stallWaiters.splice(0)) {
      waiter.reject(
        new Error(`attempt ${this.number} ended (${outcome}) without stalling`),
      );
    }
    this.#resume();
    this.#resolveSettled(outcome);
  }

  #resume(): void {
    this.#stallRequested = false;
    this.#isStalled = false;
    for (const resume of this.#resumers.splice(0)) {
      resume();
    }
  }

  #waitSent(n: number): Promise<void> {
    if (this.frames.length >= n) {
      return Promise.resolve();
    }
    if (this.outcome !== undefined) {
      return Promise.reject(
        new Error(
          `attempt ${this.number} ended (${this.outcome}) after ${this.frames.length} of ${n} frames`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.#sentWaiters.push({ n, resolve, reject });
    });
  }

  #waitStalled(): Promise<void> {
    if (this.#isStalled || this.outcome === 'stalled') {
      return Promise.resolve();
    }
    if (this.outcome !== undefined) {
      return Promise.reject(
        new Error(
          `attempt ${this.number} ended (${this.outcome}) without stalling`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.#stallWaiters.push({ resolve, reject });
    });
  }
}
