import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks every process a call started, inherited through fork and setsid. */
export const RUN_MARKER = 'CANDOR_RUN_ID';

// A fork loop that left the group (each copy starts the next and exits) can be gone by the
// time a scan reads it, its successor started after the listing and so not in it. A fixed
// number of empty scans is no proof: on a busy machine the scanner can be preempted between
// listing /proc and reading it, every time. So a scan ends the search only when it is
// conclusive: every pid it listed was read (none vanished in between), none was a process not
// seen dead before, and it found nothing new. Then no marked process can be left running: one
// that existed at the listing was read, and one started after it had a parent that was running
// at the listing, and was read. Marked processes are stopped with their process group as they
// are found (the kernel stops a group atomically, a stopped process cannot fork), and their
// session is remembered, so a copy that cleared its environment is still ours by its session.
// The bound is a backstop; scans after the first read only pids not seen before, so are cheap.
const MAX_SCANS = 1000;

/** Fields of /proc/<pid>/stat that the scan needs. */
interface Stat {
  readonly zombie: boolean;
  readonly group: number;
  readonly session: number;
}

/** Undefined when the process is gone. */
function statOf(pid: number): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state, ppid, pgrp, session.
    const [state, , group, session] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ');
    return {
      zombie: state === 'Z' || state === 'X',
      group: Number(group),
      session: Number(session),
    };
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

interface Scan {
  readonly needle: Buffer;
  /** Marked processes (or processes in a marked session) stopped so far. */
  readonly stopped: Set<number>;
  readonly groups: Set<number>;
  readonly sessions: Set<number>;
  /** Read alive without the marker; their session, in case it turns out to be ours later. */
  readonly foreign: Map<number, number>;
  /** Seen dead (zombie): they cannot start anything any more. */
  readonly dead: Set<number>;
}

/** A group or session id that may be signalled as ours: never init's, never the agent's own. */
function usable(id: number): boolean {
  return Number.isInteger(id) && id > 1 && id !== process.pid;
}

/** Stops a process found to be ours, with its group, and remembers its session. */
function stop(pid: number, stat: Stat, scan: Scan): boolean {
  if (!signal(pid, 'SIGSTOP')) return false;
  scan.stopped.add(pid);
  // Only our run's processes can be in this group or session: they made every session it
  // could be in (the command starts in a session of its own).
  if (
    usable(stat.group) &&
    !scan.groups.has(stat.group) &&
    signal(-stat.group, 'SIGSTOP')
  ) {
    scan.groups.add(stat.group);
  }
  if (usable(stat.session)) scan.sessions.add(stat.session);
  return true;
}

type Outcome = 'known' | 'foreign' | 'found' | 'unsure';

/** Reads one listed pid not already known; 'unsure' when it left before it could be read. */
function visit(pid: number, scan: Scan): Outcome {
  let environ: Buffer | undefined;
  let code: string | undefined;
  try {
    environ = readFileSync(`/proc/${String(pid)}/environ`);
  } catch (error) {
    ({ code } = error as NodeJS.ErrnoException);
  }
  // Read after the environment: alive here means it was alive when its environment was read.
  const stat = statOf(pid);
  // Gone: it may have started a successor after the listing.
  if (stat === undefined) return 'unsure';
  if (stat.zombie) {
    // It may have forked after the listing, just before it died; next time it is seen dead
    // already, so it cannot have.
    scan.dead.add(pid);
    return 'unsure';
  }
  if (
    environ?.includes(scan.needle) === true ||
    scan.sessions.has(stat.session)
  ) {
    return stop(pid, stat, scan) ? 'found' : 'unsure';
  }
  // Empty or unreadable: a kernel thread (session 0) has no environment, and another user's
  // process is not ours to kill; any other process may be in the middle of exec (the kernel
  // shows no environment until the new one is in place), so it is read again next scan.
  if (environ === undefined || environ.length === 0) {
    if (!(code === 'EACCES' || code === 'EPERM' || stat.session === 0))
      return 'unsure';
  }
  scan.foreign.set(pid, stat.session);
  return 'foreign';
}

/**
 * One synchronous pass over /proc; true when it was conclusive. Synchronous on purpose: a scan
 * that yields between listing /proc and reading an entry gives a fork loop time to hop.
 */
function scanOnce(scan: Scan): boolean {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return true;
  }
  // Newest first: a fork loop's live copy is the newest process, read before it can hop.
  const pids = names
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => b - a);
  let conclusive = true;
  for (const pid of pids) {
    if (pid === process.pid || scan.stopped.has(pid) || scan.dead.has(pid))
      continue;
    const session = scan.foreign.get(pid);
    if (session !== undefined && !scan.sessions.has(session)) continue;
    scan.foreign.delete(pid);
    const outcome = visit(pid, scan);
    if (outcome === 'found' || outcome === 'unsure') conclusive = false;
  }
  return conclusive;
}

/**
 * Kills every process whose environment carries this run's marker, or that shares a session
 * with one. A process that called setsid has left the process group, but it still carries the
 * environment it inherited; this finds it in /proc (Linux) unless it cleared its own
 * environment in a session of its own, or runs as another user. Processes are stopped as they
 * are found, then all killed, so a fork loop cannot outrun the scan.
 */
export function killMarked(marker: string): number {
  const scan: Scan = {
    needle: Buffer.from(`${RUN_MARKER}=${marker}\0`),
    stopped: new Set(),
    groups: new Set(),
    sessions: new Set(),
    foreign: new Map(),
    dead: new Set(),
  };
  for (let pass = 0; pass < MAX_SCANS && !scanOnce(scan); pass += 1);
  for (const group of scan.groups) signal(-group, 'SIGKILL');
  let killed = 0;
  for (const pid of scan.stopped) if (signal(pid, 'SIGKILL')) killed += 1;
  return killed;
}
