import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle } from 'node:fs/promises';
import { ToolError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { errorResponse } from './error-response.ts';
import { type WorkspaceDir } from './workspace-dir.ts';
import { WorkspaceGuard } from './workspace-guard.ts';
import { systemErrorCode } from './system-error-code.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Options of {@link writeFileTool}. */
export interface WriteFileToolOptions {
  /** Every path resolves inside this directory. */
  readonly root: string;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
const CHUNK_BYTES = 64 * 1024;

async function lstatOrUndefined(
  dir: WorkspaceDir,
  name: string,
): Promise<Stats | undefined> {
  try {
    return await dir.lstat(name);
  } catch (error: unknown) {
    if (systemErrorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

interface Expectation {
  readonly expectedMtimeMs: number | undefined;
  readonly expectedSha256: string | undefined;
}

async function hashOf(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(CHUNK_BYTES);
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) return hash.digest('hex');
    hash.update(chunk.subarray(0, bytesRead));
  }
}

/** Describes how the file differs from what the caller read, or undefined when it does not. */
async function staleness(
  file: { readonly dir: WorkspaceDir; readonly name: string },
  current: Stats | undefined,
  expected: Expectation,
): Promise<Record<string, unknown> | undefined> {
  if (current === undefined) return { actual: 'missing' };
  if (
    expected.expectedMtimeMs !== undefined &&
    current.mtimeMs !== expected.expectedMtimeMs
  ) {
    return {
      expectedMtimeMs: expected.expectedMtimeMs,
      actualMtimeMs: current.mtimeMs,
    };
  }
  if (expected.expectedSha256 !== undefined) {
    const handle = await file.dir.openFile(file.name, O_RDONLY);
    const actual = await hashOf(handle).finally(() => handle.close());
    if (actual !== expected.expectedSha256.toLowerCase()) {
      return { expectedSha256: expected.expectedSha256, actualSha256: actual };
    }
  }
  return undefined;
}

interface AtomicWrite {
  readonly dir: WorkspaceDir;
  readonly name: string;
  readonly content: Buffer;
  /** The file being replaced: its mode (and, as root, its owner) carry over. */
  readonly current: Stats | undefined;
  readonly signal: AbortSignal;
}

/**
 * The longest start of `text` that fits in `max` UTF-8 bytes, never half a character: names are
 * limited in bytes (255), so the temporary name beside a 255-byte name is cut by bytes.
 */
function bytePrefix(text: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > max) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * Writes a temporary file beside the target, flushes it and renames it over the target. The
 * rename is atomic: readers see the old content or the new, never a mix, and a write that fails
 * or is stopped halfway leaves the old file as it was and no temporary file behind.
 */
async function writeAtomically(write: AtomicWrite): Promise<Stats> {
  const { dir, name, content, current, signal } = write;
  const temporary = `.${bytePrefix(name, 200)}.${randomBytes(6).toString('hex')}.candor-tmp`;
  const mode = current === undefined ? 0o666 : current.mode & 0o7777;
  const handle = await dir.openFile(
    temporary,
    O_WRONLY | O_CREAT | O_EXCL,
    mode,
  );
  let renamed = false;
  try {
    try {
      // The umask narrowed the mode given to open; the original's mode is restored exactly.
      if (current !== undefined) {
        await handle.chmod(mode);
        if (process.getuid?.() === 0) {
          await handle.chown(current.uid, current.gid).catch(() => undefined);
        }
      }
      for (let offset = 0; offset < content.length;) {
        signal.throwIfAborted();
        const { bytesWritten } = await handle.write(
          content,
          offset,
          Math.min(CHUNK_BYTES, content.length - offset),
        );
        offset += bytesWritten;
      }
      signal.throwIfAborted();
      await handle.sync();
    } finally {
      await handle.close();
    }
    signal.throwIfAborted();
    await dir.rename(temporary, name);
    renamed = true;
    await dir.sync();
    return await dir.lstat(name);
  } finally {
    if (!renamed) await dir.unlink(temporary).catch(() => undefined);
  }
}

/**
 * `write_file`: writes a UTF-8 text file inside the workspace root, with an optional optimistic
 * lock: pass `expectedSha256` or `expectedMtimeMs` from an earlier `read_file`, and a file that
 * changed (or vanished) since is a CONFLICT and is left untouched.
 *
 * Outcomes: SUCCESS with bytes written, `created`, new mtime and sha256; CONFLICT; NOT_FOUND when
 * the parent directory is missing and `createParents` is not set; IS_DIRECTORY;
 * PERMISSION_DENIED; ACCESS_DENIED for paths outside the root.
 *
 * The check and the write are two steps, so a writer that slips in between them is not caught:
 * the lock catches stale edits, it is not a file lock.
 *
 * @example
 * ```ts
 * const read = await registry.call('read_file', { path: 'notes.md' });
 * await registry.call('write_file', {
 *   path: 'notes.md',
 *   content: 'new text',
 *   expectedSha256: read.data.sha256,
 * });
 * ```
 */
export function writeFileTool(options: WriteFileToolOptions) {
  const guard = new WorkspaceGuard(options.root);
  return defineTool({
    name: 'write_file',
    ...builtinTraits('write_file'),
    description:
      'Writes a UTF-8 text file inside the workspace, replacing its content. ' +
      'Pass expectedSha256 (or expectedMtimeMs) from read_file to fail with CONFLICT instead of ' +
      'overwriting a file that changed since you read it. Set createParents to create missing folders.',
    input: z.object({
      path: z
        .string()
        .min(1)
        .describe('File path, relative to the workspace root'),
      content: z.string().describe('The complete new content'),
      expectedSha256: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, 'expected a sha256 as 64 hex digits')
        .optional()
        .describe('data.sha256 from an earlier read_file'),
      expectedMtimeMs: z
        .number()
        .nonnegative()
        .optional()
        .describe('data.mtimeMs from an earlier read_file'),
      createParents: z
        .boolean()
        .default(false)
        .describe('Create missing parent directories'),
    }),
    run: async (input, context) => {
      const { path } = input;
      let dir: WorkspaceDir | undefined;
      try {
        const target = await guard.resolve(path);
        const opened = await guard
          .openParent(target, input.createParents)
          .catch((error: unknown) => {
            if (!input.createParents && systemErrorCode(error) === 'ENOENT') {
              throw new ToolError({
                code: 'NOT_FOUND',
                message: `The parent directory of ${target.relative} does not exist; pass createParents: true to create it`,
              });
            }
            throw error;
          });
        dir = opened.dir;
        const name = opened.name;
        const current =
          name === undefined ? undefined : await lstatOrUndefined(dir, name);
        if (name === undefined || current?.isDirectory() === true) {
          return ToolResponse.error(
            'IS_DIRECTORY',
            `${target.relative} is a directory`,
            { data: { path: target.relative } },
          );
        }
        if (current?.isSymbolicLink() === true) {
          // The guard resolved every link; a link here appeared after its check.
          return ToolResponse.error(
            'ACCESS_DENIED',
            `${target.relative} became a symbolic link while it was being written; nothing was written`,
            { data: { path: target.relative } },
          );
        }
        if (current !== undefined && !current.isFile()) {
          return ToolResponse.error(
            'INVALID_PARAM',
            `${target.relative} is not a regular file (a FIFO, socket or device); write_file writes regular files only`,
            { data: { path: target.relative } },
          );
        }
        if (
          input.expectedMtimeMs !== undefined ||
          input.expectedSha256 !== undefined
        ) {
          const stale = await staleness({ dir, name }, current, {
            expectedMtimeMs: input.expectedMtimeMs,
            expectedSha256: input.expectedSha256,
          });
          if (stale !== undefined) {
            return ToolResponse.error(
              'CONFLICT',
              current === undefined
                ? `${target.relative} was deleted since it was read; nothing was written`
                : `${target.relative} changed since it was read; nothing was written. Read it again, then write.`,
              { details: stale, data: { path: target.relative } },
            );
          }
        }
        const bytes = Buffer.from(input.content, 'utf8');
        const written = await writeAtomically({
          dir,
          name,
          content: bytes,
          current,
          signal: context.signal,
        });
        return ToolResponse.success(
          `${current === undefined ? 'Created' : 'Wrote'} ${target.relative} (${bytes.length} bytes)`,
          {
            data: {
              path: target.relative,
              bytes: bytes.length,
              created: current === undefined,
              mtimeMs: written.mtimeMs,
              sha256: createHash('sha256').update(bytes).digest('hex'),
            },
          },
        );
      } catch (error: unknown) {
        return errorResponse(error, path);
      } finally {
        await dir?.close();
      }
    },
  });
}
