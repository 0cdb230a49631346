import { readFileSync } from 'node:fs';

/**
 * True when no live process has this pid. A killed process whose parent died stays a zombie
 * until pid 1 reaps it, and some container inits never do: a zombie runs nothing, so it counts
 * as gone.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
