import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How {@link startRedisServer} starts its server. */
export interface RedisServerOptions {
  /** The `redis-server` binary. Default: the first `redis-server` on `PATH`. */
  readonly binary?: string;
  /** Makes the server require this password (`requirepass`). */
  readonly password?: string;
  /** Extra `redis-server` arguments, as `['--name', 'value', …]`. */
  readonly args?: readonly string[];
}

/** A `redis-server` child process on 127.0.0.1, started by {@link startRedisServer}. */
export interface RedisServer {
  /** The TCP port it listens on (127.0.0.1 only). */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`, without the password. */
  readonly url: string;
  /** Its temporary working directory; removed by {@link RedisServer.stop}. */
  readonly dir: string;
  /** Whether the server process is running now. */
  readonly running: boolean;
  /** Kills the server at once (SIGKILL), as a crash would. Resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and directory, empty. Resolves once it is ready. */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The path of the `redis-server` binary on `PATH`, or `undefined` where none is installed (tests
 * skip with a message then).
 *
 * @example
 * ```ts
 * const binary = findRedisServer();
 * if (binary === undefined) console.log('redis-server is not installed');
 * ```
 */
export function findRedisServer(): string | undefined {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? 'redis-server' : undefined;
}

/** A free TCP port on 127.0.0.1 now (another process may take it before it is bound). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') {
    throw new Error('could not find a free port');
  }
  return address.port;
}

const READY = 'Ready to accept connections';

/** Resolves when the child logs that it is ready; rejects with its output if it exits first. */
async function ready(child: ChildProcess): Promise<void> {
  let output = '';
  let resolve: () => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    if (output.includes(READY)) resolve();
  };
  const onExit = (): void => {
    reject(new Error(`redis-server exited before it was ready:\n${output}`));
  };
  child.stdout?.on('data', onData);
  child.once('exit', onExit);
  try {
    await promise;
  } finally {
    child.stdout?.off('data', onData);
    child.off('exit', onExit);
    // Keep draining its output so a full pipe never blocks the server.
    child.stdout?.resume();
  }
}

/**
 * Starts a throw-away `redis-server` on a free 127.0.0.1 port with a temporary directory, no
 * persistence and the `DEBUG` command enabled (fault tests use `DEBUG SLEEP`). For tests, demos
 * and benchmarks; never for production.
 *
 * @example
 * ```ts
 * const redis = await startRedisServer();
 * try {
 *   // connect to redis.url
 * } finally {
 *   await redis.stop();
 * }
 * ```
 */
export async function startRedisServer(
  options: RedisServerOptions = {},
): Promise<RedisServer> {
  const binary = options.binary ?? findRedisServer();
  if (binary === undefined) {
    throw new Error(
      'redis-server is not installed (apt-get install redis-server)',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'candor-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (): Promise<void> => {
    const started = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--enable-debug-command',
        'local',
        ...(options.password === undefined
          ? []
          : ['--requirepass', options.password]),
        ...(options.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child = started;
    await ready(started);
  };

  // Another process may take the port between the probe and the bind: try a few ports.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error: unknown) {
      if (attempt >= 5) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  const kill = async (): Promise<void> => {
    const current = child;
    if (current?.exitCode !== null || current.signalCode !== null) return;
    const exited = once(current, 'exit');
    current.kill('SIGKILL');
    await exited;
  };

  let stopped = false;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get running() {
      return child?.exitCode === null && child.signalCode === null;
    },
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
