import { readFileSync } from 'node:fs';

/** SIGKILL's bit in the pending-signal masks of /proc/<pid>/status. */
const SIGKILL_BIT = 1n << 8n;

/**
 * True when no live process has this pid, or it can never run again. A killed process whose
 * parent died stays a zombie until pid 1 reaps it, and some container inits never do: a zombie
 * runs nothing, so it counts as gone. So does a process with SIGKILL pending: on a busy machine
 * it may wait a while for a CPU to die on, but it runs no more of its own code.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    if (/^State:\s+[ZX]/m.test(status)) return true;
    for (const mask of status.matchAll(
      /^(?:SigPnd|ShdPnd):\s+([0-9a-f]+)$/gm,
    )) {
      if ((BigInt(`0x${mask[1] ?? '0'}`) & SIGKILL_BIT) !== 0n) return true;
    }
    return false;
  } catch {
    return true;
  }
}
