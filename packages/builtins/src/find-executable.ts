import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Where a program was found, or why it cannot run. */
export type ExecutableLookup =
  | { readonly path: string }
  | { readonly problem: 'NOT_FOUND' | 'PERMISSION_DENIED' };

async function check(path: string): Promise<ExecutableLookup> {
  try {
    if (!(await stat(path)).isFile()) return { problem: 'NOT_FOUND' };
  } catch {
    return { problem: 'NOT_FOUND' };
  }
  try {
    await access(path, constants.X_OK);
    return { path };
  } catch {
    return { problem: 'PERMISSION_DENIED' };
  }
}

/**
 * Finds a program the way `execvp` does: a name with a slash is taken relative to `cwd`, a bare
 * name is looked up in `PATH`. A missing program is known before anything runs, with or without
 * isolation, instead of being guessed from an exit code.
 */
export async function findExecutable(
  command: string,
  path: string,
  cwd: string,
): Promise<ExecutableLookup> {
  if (command.includes('/')) {
    return check(isAbsolute(command) ? command : resolve(cwd, command));
  }
  let denied = false;
  for (const directory of path.split(delimiter)) {
    // An empty PATH entry means the current directory, as in POSIX.
    const found = await check(join(resolve(cwd, directory), command));
    if ('path' in found) return found;
    denied ||= found.problem === 'PERMISSION_DENIED';
  }
  return { problem: denied ? 'PERMISSION_DENIED' : 'NOT_FOUND' };
}
