import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
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

/** The variable that marks every process a call started, inherited through fork and setsid. */
export const RUN_MARKER = 'CANDOR_RUN_ID';

// A process that keeps forking replacements and exiting (a fork loop that left the group) can
// be gone by the time one scan reads it, its successor not yet listed. So each scan stops what
// it finds, with its whole process group (the kernel stops a group atomically, and a stopped
// process cannot fork), and scans repeat until two find nothing new; then all are killed.
const QUIET_SCANS = 2;
const MAX_SCANS = 50;

/** The process group of a live process, from /proc/<pid>/stat. */
function groupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state, ppid, pgrp.
    const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return Number.isInteger(group) && group > 1 ? group : undefined;
  } catch {
    return undefined;
  }
}

function signal(target: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(target, name);
    return true;
  } catch {
    // Gone already.
    return false;
  }
}

interface Stopped {
  readonly pids: Set<number>;
  readonly groups: Set<number>;
}

/**
 * Stops every process not yet stopped whose environment holds `needle`, with its process group;
 * returns how many it found. Synchronous on purpose: a scan that yields between listing /proc
 * and reading an entry gives a fork loop the time to replace the entry it listed.
 */
function stopMarked(needle: Buffer, stopped: Stopped): number {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  // Newest first: a fork loop's live copy is the newest process, read before it can hop.
  const pids = names
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => b - a);
  let found = 0;
  for (const pid of pids) {
    if (pid === process.pid || stopped.pids.has(pid)) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${String(pid)}/environ`);
    } catch {
      continue;
    }
    if (!environ.includes(needle) || !signal(pid, 'SIGSTOP')) continue;
    stopped.pids.add(pid);
    found += 1;
    // Only our run's processes can be in this group: they made every session it could be in.
    const group = groupOf(pid);
    if (
      group !== undefined &&
      group !== process.pid &&
      !stopped.groups.has(group) &&
      signal(-group, 'SIGSTOP')
    ) {
      stopped.groups.add(group);
    }
  }
  return found;
}

/**
 * Kills every process whose environment carries this run's marker. A process that called
 * setsid has left the process group, but it still carries the environment it inherited; this
 * finds it in /proc (Linux) unless it cleared its own environment or runs as another user.
 * Marked processes and their groups are stopped as they are found, then all killed, so a fork
 * loop cannot outrun the scan.
 */
export function killMarked(marker: string): number {
  const needle = Buffer.from(`${RUN_MARKER}=${marker}\0`);
  const stopped: Stopped = { pids: new Set(), groups: new Set() };
  let quiet = 0;
  for (let scan = 0; scan < MAX_SCANS && quiet < QUIET_SCANS; scan += 1) {
    quiet = stopMarked(needle, stopped) === 0 ? quiet + 1 : 0;
  }
  for (const group of stopped.groups) signal(-group, 'SIGKILL');
  let killed = 0;
  for (const pid of stopped.pids) if (signal(pid, 'SIGKILL')) killed += 1;
  return killed;
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
