import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { killMarked, RUN_MARKER } from './kill-marked.ts';
import { type CollectedOutput, OutputCollector } from './output-collector.ts';

/** What {@link runProcess} starts. */
export interface ProcessRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Per stream. */
  readonly maxOutputBytes: number;
}

/** How a process ended. */
export interface ProcessResult {
  readonly pid: number | undefined;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: CollectedOutput;
  readonly stderr: CollectedOutput;
  /** Killed by the time limit. */
  readonly timedOut: boolean;
  /** Killed because the context's signal was aborted. */
  readonly aborted: boolean;
  /** The process could not be started at all. */
  readonly spawnError?: unknown;
}

/**
 * After the main process exits, how long its output pipes may stay open. Only a process that
 * left the process group (setsid) can hold them longer, and it is not waited for.
 */
const PIPE_GRACE_MS = 2000;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // A negative pid addresses the whole process group, children and grandchildren included.
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone, which is the goal.
  }
}

/**
 * Runs one program in its own process group, with stdin closed and both outputs collected up
 * to a cap. On timeout or abort the whole group is killed; when the program ends, whatever it
 * left running in its group is killed too, so a call that ends leaves no orphans behind (if the
 * agent itself dies first, nothing is left to kill them).
 */
export function runProcess(request: ProcessRequest): Promise<ProcessResult> {
  const stdout = new OutputCollector(request.maxOutputBytes);
  const stderr = new OutputCollector(request.maxOutputBytes);
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } = {
      code: null,
      signal: null,
    };
    let settled = false;
    let grace: NodeJS.Timeout | undefined;

    const marker = randomBytes(12).toString('hex');
    const child = spawn(request.file, [...request.args], {
      cwd: request.cwd,
      env: { ...request.env, [RUN_MARKER]: marker },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });

    const onAbort = (): void => {
      aborted = true;
      killGroup(child.pid);
    };

    const finish = (spawnError?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      request.signal.removeEventListener('abort', onAbort);
      // Whatever left the group (setsid) is found by its marker before the call answers.
      killMarked(marker);
      resolve({
        pid: child.pid,
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.result(),
        stderr: stderr.result(),
        timedOut,
        aborted,
        ...(spawnError === undefined ? {} : { spawnError }),
      });
    };

    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
    });
    child.on('error', (error: Error) => {
      // Emitted when the program could not start (or could not be killed); only the first
      // matters, and a started program still ends through 'close'.
      if (child.pid === undefined) finish(error);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid);
      killMarked(marker);
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, PIPE_GRACE_MS);
      grace.unref();
    });
    child.on('close', () => {
      finish();
    });

    // Event handlers run later, so `finish` never sees this binding uninitialised.
    const timer =
      child.pid === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup(child.pid);
          }, request.timeoutMs);
    if (child.pid === undefined) return;
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
  });
}
