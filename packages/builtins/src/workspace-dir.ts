import { constants, existsSync, type Stats } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  unlink,
} from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ToolError } from '@candor/errors';
import { systemErrorCode } from './system-error-code.ts';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Linux names every open descriptor under `/proc/self/fd`, and `/proc/self/fd/N/name` looks
 * `name` up in the directory that descriptor holds: Node's stand-in for `openat(2)`.
 */
const PROC_FD = '/proc/self/fd';
const hasProcFd = existsSync(PROC_FD);

/** Flags every open through a {@link WorkspaceDir} adds: never follow a last-component link, never block. */
export const SAFE_OPEN_FLAGS = O_NOFOLLOW | O_NONBLOCK;

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return (
    rel === '' ||
    (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
  );
}

/** A path that changed under us between the guard's check and the open. */
export function swappedError(shown: string): ToolError {
  return new ToolError({
    code: 'ACCESS_DENIED',
    message: `${shown} changed while it was being opened (a part of it became a symbolic link or left the workspace); nothing was read or written`,
    details: { path: shown, policy: 'workspace-root' },
  });
}

/**
 * An open directory inside the workspace. Every name is looked up in the directory this
 * descriptor holds, never by the full path again, so swapping a parent for a symbolic link after
 * the check changes nothing: the race between the guard's check and the tool's use is gone.
 *
 * Without `/proc` (not Linux), names go through the directory's path and every open is checked
 * afterwards by device and inode; see docs/builtins.md for what remains there.
 */
export class WorkspaceDir {
  readonly #handle: FileHandle;
  readonly #path: string;
  readonly #shown: string;

  private constructor(handle: FileHandle, path: string, shown: string) {
    this.#handle = handle;
    this.#path = path;
    this.#shown = shown;
  }

  /**
   * Opens `parts` (real names, no links, no `..`) one at a time from `realRoot`, each without
   * following links. `create` makes missing directories on the way, in the same manner.
   */
  static async open(options: {
    readonly realRoot: string;
    readonly parts: readonly string[];
    readonly shown: string;
    readonly create?: boolean;
  }): Promise<WorkspaceDir> {
    let current = new WorkspaceDir(
      await open(options.realRoot, O_RDONLY | O_DIRECTORY),
      options.realRoot,
      options.shown,
    );
    try {
      for (const part of options.parts) {
        if (options.create === true) {
          await mkdir(current.path(part)).catch((error: unknown) => {
            if (systemErrorCode(error) !== 'EEXIST') throw error;
          });
        }
        const next = await current.openDir(part);
        await current.close();
        current = next;
      }
      await current.verify(options.realRoot);
      return current;
    } catch (error: unknown) {
      await current.close();
      throw error;
    }
  }

  /** The path that names `name` in this directory (or the directory itself). */
  path(name?: string): string {
    const self = hasProcFd ? `${PROC_FD}/${this.#handle.fd}` : this.#path;
    return name === undefined ? self : `${self}/${name}`;
  }

  /** Opens a subdirectory without following a link. */
  async openDir(name: string): Promise<WorkspaceDir> {
    const handle = await this.#openChecked(
      name,
      O_RDONLY | O_DIRECTORY | SAFE_OPEN_FLAGS,
    );
    return new WorkspaceDir(handle, join(this.#path, name), this.#shown);
  }

  /**
   * Opens `name` in this directory with `flags` plus O_NOFOLLOW and O_NONBLOCK: a link is
   * refused, and a FIFO or device never blocks the thread that opens it.
   */
  async openFile(
    name: string,
    flags: number,
    mode?: number,
  ): Promise<FileHandle> {
    return this.#openChecked(name, flags | SAFE_OPEN_FLAGS, mode);
  }

  async #openChecked(
    name: string,
    flags: number,
    mode?: number,
  ): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await open(this.path(name), flags, mode);
    } catch (error: unknown) {
      // O_NOFOLLOW met a link where the guard saw none: the path was swapped.
      if (systemErrorCode(error) === 'ELOOP') throw swappedError(this.#shown);
      throw error;
    }
    if (!hasProcFd) {
      // No descriptor-relative lookup: check that what was opened is what the path names now.
      try {
        const [opened, named] = await Promise.all([
          handle.stat(),
          lstat(join(this.#path, name)),
        ]);
        if (opened.dev !== named.dev || opened.ino !== named.ino) {
          throw swappedError(this.#shown);
        }
      } catch (error: unknown) {
        await handle.close();
        throw error;
      }
    }
    return handle;
  }

  /** Checks, through the kernel's own record of the descriptor, that it lies inside the root. */
  async verify(realRoot: string): Promise<void> {
    const actual = hasProcFd
      ? await readlink(this.path())
      : await realpath(this.#path);
    if (!isInside(realRoot, actual)) throw swappedError(this.#shown);
  }

  /** Entry names and types, read through the descriptor. */
  readdir() {
    return readdir(this.path(), { withFileTypes: true });
  }

  /** The entry itself, not what a link points to. */
  lstat(name: string): Promise<Stats> {
    return lstat(this.path(name));
  }

  /** Renames within this directory. */
  rename(from: string, to: string): Promise<void> {
    return rename(this.path(from), this.path(to));
  }

  /** Removes a file of this directory. */
  unlink(name: string): Promise<void> {
    return unlink(this.path(name));
  }

  /** Flushes the directory itself, so a rename in it survives a crash. */
  async sync(): Promise<void> {
    await this.#handle.sync().catch(() => {
      // Some file systems refuse fsync on directories; the rename itself is still atomic.
    });
  }

  /** Closes the descriptor; safe to call twice. */
  async close(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
  }
}
