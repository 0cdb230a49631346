import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

// The line registry/serve-registry.mjs prints once it listens.
const READY_PREFIX = 'candor-registry-listening ';
const START_TIMEOUT_MS = 60_000;

/** A Verdaccio child process serving on 127.0.0.1. */
export interface RunningRegistry {
  /** `http://127.0.0.1:<port>/`, with the trailing slash npm expects. */
  readonly url: string;
  /** Stops the registry; resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>;
  /** Kills the registry at once, for `process.on('exit')`, where nothing can be awaited. */
  killNow(): void;
}

/**
 * Starts Verdaccio (installed in `install-test/registry`) with the given config file, on a port
 * the kernel picks, and resolves once it listens.
 */
export async function startRegistry(
  configPath: string,
): Promise<RunningRegistry> {
  const script = join(import.meta.dirname, 'registry', 'serve-registry.mjs');
  const child = spawn(process.execPath, [script, configPath], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const killNow = (): void => {
    if (child.exitCode === null && child.signalCode === null)
      child.kill('SIGKILL');
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;
  };

  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(
          `the registry did not listen within ${START_TIMEOUT_MS / 1000}s`,
        ),
      );
    }, START_TIMEOUT_MS);
    lines.on('line', (line) => {
      if (!line.startsWith(READY_PREFIX)) return;
      clearTimeout(timer);
      resolve(Number(line.slice(READY_PREFIX.length)));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the registry exited before listening (${signal ?? `code ${code}`})\n${stderr.trim()}`,
        ),
      );
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  }).catch((error: unknown) => {
    killNow();
    throw error;
  });
  return { url: `http://127.0.0.1:${port}/`, stop, killNow };
}
