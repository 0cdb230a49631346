import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { packageDir } from './bundle-fixture.ts';

/** A worker's answer to `{ type: 'call' }` (see fleet-worker.ts). */
export interface WorkerResult {
  type: 'result';
  code: string;
  ran: boolean;
  stateBefore: string;
  at: number;
}

/** One breaker transition a worker saw, with its own clock (`Date.now()`). */
export interface WorkerChange {
  type: 'state';
  from: string;
  to: string;
  origin: 'process' | 'fleet';
  at: number;
  /** To open: when the circuit opened (the breaker's `snapshot().openedAt`). */
  openedAt?: number;
}

/** One forked fleet worker (the bundle of fleet-worker.ts) and what it told the parent. */
export class FleetWorkerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly changes: WorkerChange[] = [];
  readonly #waiters: {
    test: (message: { type: string }) => boolean;
    resolve: (message: never) => void;
  }[] = [];

  /** Rejects when the process exits: a crashed worker fails the test instead of hanging it. */
  readonly #exited: Promise<never>;

  constructor(file: string, name: string) {
    this.name = name;
    this.child = fork(file, [], {
      cwd: packageDir,
      // A plain-node bundle: five processes loading TypeScript through a loader each start in
      // seconds on a busy machine; the bundle starts in milliseconds.
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#exited = once(this.child, 'exit').then(([code]) => {
      throw new Error(`worker ${name} exited (${String(code)})`);
    });
    this.#exited.catch(() => undefined);
    this.child.on('message', (message: { type: string }) => {
      if (message.type === 'state') this.changes.push(message as WorkerChange);
      if (message.type === 'error') {
        // Surfaces in the test's output; the awaited message never comes, so the test fails.
        process.stderr.write(`worker ${name}: ${JSON.stringify(message)}\n`);
      }
      const waiter = this.#waiters.find((w) => w.test(message));
      if (waiter === undefined) return;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(message as never);
    });
  }

  async next<T>(test: (message: { type: string }) => boolean): Promise<T> {
    const message = new Promise<T>((resolve) => {
      this.#waiters.push({
        test,
        resolve,
      });
    });
    return Promise.race([message, this.#exited]);
  }

  /**
   * Resolves with the worker's first transition to `to` after its first `since` transitions (at
   * once if it happened already).
   */
  async becomes(to: string, since = 0): Promise<WorkerChange> {
    const seen = this.changes.slice(since).find((change) => change.to === to);
    if (seen !== undefined) return seen;
    return this.next<WorkerChange>(
      (m) => m.type === 'state' && (m as WorkerChange).to === to,
    );
  }

  async call(): Promise<WorkerResult> {
    const answer = this.next<WorkerResult>((m) => m.type === 'result');
    this.child.send({ type: 'call' });
    return answer;
  }

  /** Starts the worker's store and breaker; rejects with the worker's error if it fails to. */
  async start(options: object): Promise<{ state: string }> {
    const ready = this.next<{ state: string }>((m) => m.type === 'ready');
    const failed = this.next<{ message: string }>((m) => m.type === 'error');
    this.child.send({ type: 'start', name: this.name, ...options });
    return Promise.race([
      ready,
      failed.then(({ message }) => {
        throw new Error(`worker ${this.name} did not start: ${message}`);
      }),
    ]);
  }

  /** Closes the worker's store and breaker and waits for it to exit (at once if it has). */
  async exit(): Promise<void> {
    if (this.child.exitCode !== null || !this.child.connected) return;
    const exited = once(this.child, 'exit');
    this.child.send({ type: 'exit' });
    await exited;
  }
}
