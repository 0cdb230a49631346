/**
 * `pnpm demo:fleet`: three worker processes share one circuit per tool through Redis. Prints one
 * timeline of the circuit opening everywhere when the upstream fails and recovering with one
 * trial for the whole fleet. Needs `redis-server`; without it, says so and exits 0.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { findRedisServer, startRedisServer } from '@candor/breaker-redis';

const RESET_MS = 1_000;
// The one fleet worker of the repository, shared with @candor/breaker-redis's multi-process
// test: a store and a breaker per process, driven over IPC.
const workerFile = fileURLToPath(
  new URL(
    '../../../packages/breaker-redis/src/__fixtures__/fleet-worker.ts',
    import.meta.url,
  ),
);
let started = Date.now();

function line(who: string, text: string): void {
  const ms = String(Date.now() - started).padStart(5);
  process.stdout.write(`  +${ms} ms  ${who.padEnd(8)} ${text}\n`);
}

interface Reply {
  type: string;
  code?: string;
  ran?: boolean;
  from?: string;
  to?: string;
  origin?: string;
}

class Worker {
  readonly name: string;
  readonly child: ChildProcess;
  readonly states: string[] = [];
  #waiters: { type: string; resolve: (reply: Reply) => void }[] = [];
  #stateWaiters: { to: string; resolve: () => void }[] = [];

  constructor(name: string) {
    this.name = name;
    this.child = fork(workerFile, [], {
      execArgv: ['--import', 'tsx', '--conditions=@candor/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: Reply) => {
      if (reply.type === 'state') {
        // Stopping the workers at the end is not part of the story.
        if (reply.to === 'shutdown') return;
        const who =
          reply.origin === 'fleet'
            ? 'heard from the fleet'
            : 'decided by this process';
        line(
          this.name,
          `circuit ${String(reply.from)} → ${String(reply.to)} (${who})`,
        );
        this.states.push(String(reply.to));
        for (const waiter of this.#stateWaiters.filter(
          (w) => w.to === reply.to,
        )) {
          waiter.resolve();
        }
        this.#stateWaiters = this.#stateWaiters.filter(
          (w) => w.to !== reply.to,
        );
        return;
      }
      if (reply.type === 'error') {
        process.stderr.write(`${this.name}: ${JSON.stringify(reply)}\n`);
        process.exitCode = 1;
      }
      const waiter = this.#waiters.find((w) => w.type === reply.type);
      if (waiter === undefined) return;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(reply);
    });
  }

  async next(type: string): Promise<Reply> {
    return new Promise((resolve) => this.#waiters.push({ type, resolve }));
  }

  async becomes(to: string): Promise<void> {
    if (this.states.includes(to)) return;
    await new Promise<void>((resolve) =>
      this.#stateWaiters.push({ to, resolve }),
    );
  }

  async call(show = true): Promise<Reply> {
    const reply = this.next('result');
    this.child.send({ type: 'call' });
    const result = await reply;
    if (show || result.ran === true) {
      line(
        this.name,
        `call → ${String(result.code)} (${result.ran === true ? 'upstream called' : 'upstream NOT called'})`,
      );
    }
    return result;
  }

  async stop(): Promise<void> {
    const exited = once(this.child, 'exit');
    this.child.send({ type: 'exit' });
    await exited;
  }
}

async function main(): Promise<void> {
  if (findRedisServer() === undefined) {
    process.stdout.write(
      'The fleet demo needs redis-server, which is not installed here (Debian: apt-get install redis-server). Nothing to show.\n',
    );
    return;
  }
  const redis = await startRedisServer();
  let healthy = false;
  const upstream = createServer((_request, response) => {
    response.writeHead(healthy ? 200 : 503).end(healthy ? 'ok' : 'down');
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  const workers = ['worker-1', 'worker-2', 'worker-3'].map(
    (name) => new Worker(name),
  );
  try {
    await Promise.all(workers.map((w) => w.next('loaded')));
    const ready = workers.map((w) => w.next('ready'));
    for (const w of workers) {
      w.child.send({
        type: 'start',
        name: w.name,
        redisUrl: redis.url,
        upstreamUrl,
        resetTimeoutMs: RESET_MS,
        tool: 'weather_api',
        keyPrefix: 'candor-demo:',
        // The claimant of the trial gets half a second to make its call once the trial is due,
        // so a slow machine still shows exactly one trial.
        trialClaimMs: 500,
      });
    }
    await Promise.all(ready);
    started = Date.now();
    process.stdout.write(
      `Fleet demo: 3 worker processes, one Redis (${redis.url}), one tool weather_api.\n` +
        `Each breaker opens at 5 calls with > 50 % failures; no worker alone sees 5.\n\n`,
    );
    line('upstream', 'is DOWN (answers 503)');
    const [w1, w2, w3] = workers as [Worker, Worker, Worker];
    const opened = Promise.all(workers.map((w) => w.becomes('open')));
    for (const w of [w1, w2, w3, w1, w2]) await w.call();
    await opened;
    for (const w of workers) await w.call();
    line(
      'upstream',
      `recovers; the fleet's one trial comes after ${RESET_MS} ms`,
    );
    healthy = true;
    const closed = Promise.all(workers.map((w) => w.becomes('closed')));
    const done = { closed: false };
    void closed.then(() => {
      done.closed = true;
    });
    let refused = 0;
    while (!done.closed) {
      const round = await Promise.all(workers.map((w) => w.call(false)));
      refused += round.filter((r) => r.ran !== true).length;
    }
    line(
      'fleet',
      `${refused} calls refused at once while open or during the trial`,
    );
    for (const w of workers) await w.call();
    process.stdout.write(
      '\nOne window for the fleet, open everywhere at once, one trial for everyone.\n',
    );
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    upstream.close();
    await redis.stop();
  }
}

await main();
