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
 * The bubblewrap arguments that run a command with no network interface, the whole file system
 * read-only except `root` (`/proc/sys` included), a private `/tmp` and `/dev`, its own user
 * namespace without capabilities, and its own pid namespace. The order matters: later mounts go
 * on top of earlier ones, so the root stays writable even when it lives under `/tmp`.
 *
 * What it does not stop: reading any file the agent's user can read (as root, `/etc/shadow`),
 * and connecting to Unix-domain sockets on the file system, which a read-only mount does not
 * cover (a container runtime's socket hands out the host). The command keeps the agent's uid.
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
    // The user namespace maps the agent's uid to itself, so under a root agent the command is
    // the host's root to the kernel's sysctl checks, which ask for no capability: without these
    // it could write host-wide settings such as kernel.core_pattern. bubblewrap covers
    // /proc/sys itself only when the directory looks writable, which it never does.
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    '--ro-bind-try',
    '/proc/sysrq-trigger',
    '/proc/sysrq-trigger',
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
