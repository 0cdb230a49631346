import { execFile } from 'node:child_process';

/** Whether bubblewrap can isolate commands on this machine, and if not, why. */
export type IsolationSupport =
  | { readonly available: true; readonly bwrap: string }
  | { readonly available: false; readonly reason: string };

/** What {@link bubblewrapArgs} wraps. */
export interface IsolatedCommand {
  /** The only directory the command may write to (besides a private, empty `/tmp`). */
  readonly root: string;
  readonly cwd: string;
  readonly file: string;
  readonly args: readonly string[];
}

/**
 * The bubblewrap arguments that run a command with no network, the whole file system read-only
 * except `root`, a private `/tmp`, its own user namespace without capabilities (so running as
 * root does not help it), and its own pid namespace. The order matters: later mounts
 * go on top of earlier ones, so the root stays writable even when it lives under `/tmp`.
 */
export function bubblewrapArgs(command: IsolatedCommand): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--bind',
    command.root,
    command.root,
    // A user namespace with every capability dropped: even when the agent runs as root, the
    // command cannot remount the read-only root, load modules or change namespaces back.
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--unshare-net',
    // Its own pid namespace: when the command's init ends, the kernel kills every process in
    // it, including those that called setsid; --die-with-parent ends it with the agent.
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--new-session',
    '--die-with-parent',
    '--chdir',
    command.cwd,
    '--',
    command.file,
    ...command.args,
  ];
}

/**
 * Tries bubblewrap once with the same namespaces the shell tool's sandbox asks for. Installed is
 * not enough: containers often forbid the user namespaces it needs.
 */
export function probeBubblewrap(bwrap = 'bwrap'): Promise<IsolationSupport> {
  return new Promise((resolve) => {
    execFile(
      bwrap,
      bubblewrapArgs({ root: '/', cwd: '/', file: 'true', args: [] }),
      { timeout: 10_000 },
      (error, _stdout, stderr) => {
        if (error === null) {
          resolve({ available: true, bwrap });
          return;
        }
        const detail = stderr.trim() === '' ? error.message : stderr.trim();
        resolve({
          available: false,
          reason: `bubblewrap (${bwrap}) is not usable here: ${detail}`,
        });
      },
    );
  });
}
