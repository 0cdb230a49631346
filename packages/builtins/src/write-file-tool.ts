import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Stats } from 'node:fs';
import { ToolError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { errorResponse } from './error-response.ts';
import { WorkspaceGuard } from './workspace-guard.ts';

/** Options of {@link writeFileTool}. */
export interface WriteFileToolOptions {
  /** Every path resolves inside this directory. */
  readonly root: string;
}

function isMissing(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    error.code === 'ENOENT'
  );
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error: unknown) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

interface Expectation {
  readonly expectedMtimeMs: number | undefined;
  readonly expectedSha256: string | undefined;
}

/** Describes how the file differs from what the caller read, or undefined when it does not. */
async function staleness(
  path: string,
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
    const actual = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
    if (actual !== expected.expectedSha256.toLowerCase()) {
      return { expectedSha256: expected.expectedSha256, actualSha256: actual };
    }
  }
  return undefined;
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
      const { path, content } = input;
      try {
        const target = await guard.resolve(path);
        const current = await statOrUndefined(target.absolute);
        if (current?.isDirectory() === true) {
          return ToolResponse.error(
            'IS_DIRECTORY',
            `${target.relative} is a directory`,
            { data: { path: target.relative } },
          );
        }
        if (
          input.expectedMtimeMs !== undefined ||
          input.expectedSha256 !== undefined
        ) {
          const stale = await staleness(target.absolute, current, {
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
        const parent = dirname(target.absolute);
        if (input.createParents) {
          await mkdir(parent, { recursive: true });
        } else if ((await statOrUndefined(parent)) === undefined) {
          throw new ToolError({
            code: 'NOT_FOUND',
            message: `The parent directory of ${target.relative} does not exist; pass createParents: true to create it`,
          });
        }
        await writeFile(target.absolute, content, {
          encoding: 'utf8',
          signal: context.signal,
        });
        const written = await stat(target.absolute);
        const bytes = Buffer.byteLength(content, 'utf8');
        return ToolResponse.success(
          `${current === undefined ? 'Created' : 'Wrote'} ${target.relative} (${bytes} bytes)`,
          {
            data: {
              path: target.relative,
              bytes,
              created: current === undefined,
              mtimeMs: written.mtimeMs,
              sha256: createHash('sha256')
                .update(content, 'utf8')
                .digest('hex'),
            },
          },
        );
      } catch (error: unknown) {
        return errorResponse(error, path);
      }
    },
  });
}
