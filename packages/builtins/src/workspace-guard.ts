import { lstat, readlink, realpath } from 'node:fs/promises';
import {
  basename,
  dirname,
  isAbsolute,
  join,
  relative,
  resolve,
  sep,
} from 'node:path';
import { ToolError } from '@candor/errors';
import { WorkspaceDir } from './workspace-dir.ts';

/** A path that passed the guard. */
export interface GuardedPath {
  /** The real, absolute path, with every symlink resolved; use it for I/O. */
  readonly absolute: string;
  /** The same path relative to the root, with `/` separators; `.` for the root itself. */
  readonly relative: string;
}

// Linux's PATH_MAX and NAME_MAX: longer is ENAMETOOLONG, the model's mistake, not the tool's.
const MAX_PATH_BYTES = 4095;
const MAX_NAME_BYTES = 255;

function invalidPath(requested: string, why: string): ToolError {
  const shown =
    requested.length > 80
      ? `${requested.slice(0, 80)}… (${requested.length} characters)`
      : requested;
  return new ToolError({
    code: 'INVALID_PARAM',
    message: `Invalid path ${JSON.stringify(shown)}: ${why}`,
    details: { policy: 'path-syntax' },
  });
}

// Linux gives up after 40 links (ELOOP); so do we, instead of looping on a cycle.
const MAX_LINKS = 40;

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return (
    rel === '' ||
    (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
  );
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error
    ? error.code
    : undefined;
}

function denied(requested: string, why: string): ToolError {
  return new ToolError({
    code: 'ACCESS_DENIED',
    message: `Path ${JSON.stringify(requested)} is outside the workspace root: ${why}`,
    details: { path: requested, policy: 'workspace-root' },
  });
}

/**
 * Keeps every path inside one root directory. `..`, absolute paths elsewhere and symlinks that
 * lead out of the root are refused with ACCESS_DENIED before the tool touches the file.
 *
 * It is a path policy, not a sandbox: it checks paths that tools are given, and cannot stop a
 * program started by the shell tool from opening whatever the operating system lets it open.
 *
 * @example
 * ```ts
 * const guard = new WorkspaceGuard('/srv/project');
 * const { absolute } = await guard.resolve('src/index.ts');
 * await guard.resolve('../etc/passwd'); // throws ToolError ACCESS_DENIED
 * ```
 */
export class WorkspaceGuard {
  /** The root as configured, made absolute. */
  readonly root: string;
  #realRoot: Promise<string> | undefined;

  constructor(root: string) {
    if (typeof root !== 'string' || root.trim() === '') {
      throw new TypeError(
        'WorkspaceGuard: root must be a non-empty directory path',
      );
    }
    this.root = resolve(root);
  }

  /** The root with its own symlinks resolved. Fails with NOT_FOUND when the root is missing. */
  async realRoot(): Promise<string> {
    this.#realRoot ??= realpath(this.root).catch((error: unknown) => {
      this.#realRoot = undefined;
      throw new ToolError({
        code: 'NOT_FOUND',
        message: `The workspace root ${this.root} does not exist or cannot be read`,
        cause: error,
      });
    });
    return this.#realRoot;
  }

  /**
   * Resolves `requested` (relative to the root, or absolute inside it) to a real path inside the
   * root. The path itself need not exist, so that it can be created.
   */
  async resolve(requested: string): Promise<GuardedPath> {
    if (requested.includes('\0')) {
      throw new ToolError({
        code: 'INVALID_PARAM',
        message: 'Paths may not contain NUL characters',
        details: { path: requested },
      });
    }
    if (Buffer.byteLength(requested) > MAX_PATH_BYTES) {
      throw invalidPath(requested, `longer than ${MAX_PATH_BYTES} bytes`);
    }
    const longName = requested
      .split(/[\\/]/)
      .find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
    if (longName !== undefined) {
      throw invalidPath(
        requested,
        `a name in it is longer than ${MAX_NAME_BYTES} bytes`,
      );
    }
    const realRoot = await this.realRoot();
    const lexical = resolve(this.root, requested);
    if (!isInside(this.root, lexical) && !isInside(realRoot, lexical)) {
      throw denied(requested, 'it leads out of the root');
    }
    if (Buffer.byteLength(lexical) > MAX_PATH_BYTES) {
      throw invalidPath(requested, 'it resolves to a path that is too long');
    }
    const absolute = await this.#follow(lexical);
    if (!isInside(realRoot, absolute)) {
      throw denied(requested, 'a symbolic link leads out of the root');
    }
    if (Buffer.byteLength(absolute) > MAX_PATH_BYTES) {
      throw invalidPath(requested, 'it resolves to a path that is too long');
    }
    const rel = relative(realRoot, absolute);
    return {
      absolute,
      relative: rel === '' ? '.' : rel.split(sep).join('/'),
    };
  }

  /**
   * Opens a guarded directory from the root's descriptor, one name at a time without following
   * links, so that no part can be swapped for a link after {@link WorkspaceGuard.resolve}
   * checked it. `create` makes missing directories on the way.
   */
  async openDirectory(
    target: GuardedPath,
    create = false,
  ): Promise<WorkspaceDir> {
    return WorkspaceDir.open({
      realRoot: await this.realRoot(),
      parts: target.relative === '.' ? [] : target.relative.split('/'),
      shown: target.relative,
      create,
    });
  }

  /**
   * Opens the directory that holds a guarded path, as {@link WorkspaceGuard.openDirectory} does,
   * and gives the last name; `name` is undefined for the root itself.
   */
  async openParent(
    target: GuardedPath,
    create = false,
  ): Promise<{
    readonly dir: WorkspaceDir;
    readonly name: string | undefined;
  }> {
    const parts = target.relative === '.' ? [] : target.relative.split('/');
    const name = parts.pop();
    const dir = await WorkspaceDir.open({
      realRoot: await this.realRoot(),
      parts,
      shown: target.relative,
      create,
    });
    return { dir, name };
  }

  /** A real path for `path`, following links through parts that do not exist yet. */
  async #follow(path: string, links = 0): Promise<string> {
    try {
      if (links > MAX_LINKS)
        throw Object.assign(new Error(), { code: 'ELOOP' });
      return await realpath(path);
    } catch (error: unknown) {
      if (errorCode(error) === 'ELOOP') {
        // A loop is not an escape, but a path that cannot be resolved is unusable.
        throw new ToolError({
          code: 'INVALID_PARAM',
          message: `Too many levels of symbolic links in ${path}`,
        });
      }
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') {
        throw error;
      }
    }
    // Something on the way is missing. A dangling link still points somewhere, and writing
    // through it would create its target, so its target is checked like any other path.
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink() === true) {
      const target = resolve(dirname(path), await readlink(path));
      return this.#follow(target, links + 1);
    }
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await this.#follow(parent, links), basename(path));
  }
}
