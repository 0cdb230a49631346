import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle } from 'node:fs/promises';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { BINARY_SNIFF_BYTES, binaryReason } from './binary-reason.ts';
import { errorResponse } from './error-response.ts';
import { positiveOption } from './positive-option.ts';
import { type GuardedPath, WorkspaceGuard } from './workspace-guard.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Options of {@link readFileTool}. */
export interface ReadFileToolOptions {
  /** Every path resolves inside this directory. */
  readonly root: string;
  /** The most bytes of content one call returns; a longer range is PARTIAL. 256 KiB. */
  readonly maxBytes?: number;
}

const CHUNK_BYTES = 64 * 1024;
const DEFAULT_MAX_BYTES = 256 * 1024;

interface Scan {
  readonly content: string;
  readonly totalLines: number;
  readonly endLine: number;
  readonly capped: boolean;
  readonly truncatedLine: boolean;
  readonly sha256: string;
  readonly binary: string | undefined;
}

interface ScanRequest {
  readonly handle: FileHandle;
  readonly first: number;
  readonly last: number;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

/** One pass over the file: picks the requested lines, counts all of them and hashes the bytes. */
async function scanFile(request: ScanRequest): Promise<Scan> {
  const { first, last, maxBytes, handle } = request;
  {
    const hash = createHash('sha256');
    const parts: Uint8Array[] = [];
    let kept = 0;
    let lineStart = 0;
    let lineNo = 1;
    let newlines = 0;
    let size = 0;
    let lastByte = -1;
    let keepBytes: number | undefined;
    let endLine: number | undefined;
    let truncatedLine = false;
    for (;;) {
      request.signal.throwIfAborted();
      const chunk = Buffer.alloc(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const bytes = chunk.subarray(0, bytesRead);
      if (size === 0) {
        const binary = binaryReason(
          bytes.subarray(0, BINARY_SNIFF_BYTES),
          bytesRead < BINARY_SNIFF_BYTES,
        );
        if (binary !== undefined) {
          return {
            content: '',
            totalLines: 0,
            endLine: 0,
            capped: false,
            truncatedLine: false,
            sha256: '',
            binary,
          };
        }
      }
      hash.update(bytes);
      size += bytesRead;
      lastByte = bytes[bytesRead - 1] ?? lastByte;
      let pos = 0;
      while (pos < bytes.length) {
        const newline = bytes.indexOf(10, pos);
        const end = newline === -1 ? bytes.length : newline + 1;
        if (endLine === undefined && lineNo >= first && lineNo <= last) {
          const segment = bytes.subarray(pos, end);
          if (kept + segment.length <= maxBytes) {
            parts.push(segment);
            kept += segment.length;
          } else if (lineNo === first) {
            // Not even the first line fits: return its head rather than nothing.
            parts.push(segment.subarray(0, maxBytes - kept));
            kept = maxBytes;
            endLine = first;
            truncatedLine = true;
          } else {
            keepBytes = lineStart;
            endLine = lineNo - 1;
          }
        }
        if (newline !== -1) {
          newlines += 1;
          lineNo += 1;
          lineStart = kept;
        }
        pos = end;
      }
    }
    const totalLines = newlines + (size > 0 && lastByte !== 10 ? 1 : 0);
    const bytes = Buffer.concat(parts).subarray(0, keepBytes ?? kept);
    return {
      // Non-fatal and streaming: later invalid bytes become U+FFFD, and a character cut at the
      // cap is dropped instead of shown as garbage.
      content: new TextDecoder().decode(bytes, { stream: true }),
      totalLines,
      endLine: endLine ?? Math.min(last, totalLines),
      capped: endLine !== undefined,
      truncatedLine,
      sha256: hash.digest('hex'),
      binary: undefined,
    };
  }
}

/**
 * `read_file`: reads a UTF-8 text file inside the workspace root, optionally a range of lines.
 *
 * Outcomes: SUCCESS with `data` = content, total lines, size, mtime and sha256; PARTIAL
 * (`reason: 'size_cap'`) when the range is longer than the cap, with the returned range;
 * NOT_FOUND, IS_DIRECTORY, PERMISSION_DENIED, BINARY_FILE (NUL bytes or invalid UTF-8 in the first
 * 8 KiB, whatever the extension), ACCESS_DENIED for paths outside the root, INVALID_PARAM for an
 * offset past the end.
 *
 * @example
 * ```ts
 * registry.register(readFileTool({ root: process.cwd() }));
 * await registry.call('read_file', { path: 'README.md', offset: 1, limit: 40 });
 * ```
 */
export function readFileTool(options: ReadFileToolOptions) {
  const guard = new WorkspaceGuard(options.root);
  const maxBytes = positiveOption(
    'readFileTool: maxBytes',
    options.maxBytes,
    DEFAULT_MAX_BYTES,
  );
  return defineTool({
    name: 'read_file',
    ...builtinTraits('read_file'),
    description:
      'Reads a UTF-8 text file inside the workspace, optionally a range of lines. ' +
      `Returns at most ${maxBytes} bytes; a longer range comes back partial with the lines returned. ` +
      'data.sha256 and data.mtimeMs can be passed to write_file to detect concurrent changes.',
    input: z.object({
      path: z
        .string()
        .min(1)
        .describe('File path, relative to the workspace root'),
      offset: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('First line to return, counting from 1. Default 1.'),
      limit: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Most lines to return. Default: to the end of the file.'),
    }),
    run: async ({ path, offset, limit }, context) => {
      try {
        const target = await guard.resolve(path);
        const { dir, name } = await guard.openParent(target);
        let handle: FileHandle | undefined;
        try {
          // Opened by name in the verified directory, without following a link and without
          // blocking on a FIFO; everything after works on this descriptor.
          handle =
            name === undefined
              ? undefined
              : await dir.openFile(name, constants.O_RDONLY);
        } finally {
          await dir.close();
        }
        try {
          return await readOpened({
            handle,
            target,
            offset,
            limit,
            maxBytes,
            signal: context.signal,
          });
        } finally {
          await handle?.close();
        }
      } catch (error: unknown) {
        return errorResponse(error, path);
      }
    },
  });
}

async function readOpened({
  handle,
  target,
  offset,
  limit,
  signal,
  maxBytes,
}: {
  readonly handle: FileHandle | undefined;
  readonly target: GuardedPath;
  readonly offset: number | undefined;
  readonly limit: number | undefined;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
}): Promise<ToolResponse> {
  const info = await handle?.stat();
  if (handle === undefined || info === undefined || info.isDirectory()) {
    return ToolResponse.error(
      'IS_DIRECTORY',
      `${target.relative} is a directory; use list_dir to see its entries`,
      { data: { path: target.relative } },
    );
  }
  if (!info.isFile()) {
    // Reading a FIFO or a device could block forever or never end.
    return ToolResponse.error(
      'INVALID_PARAM',
      `${target.relative} is not a regular file`,
      { data: { path: target.relative } },
    );
  }
  const first = offset ?? 1;
  const scan = await scanFile({
    handle,
    first,
    last: limit === undefined ? Number.POSITIVE_INFINITY : first + limit - 1,
    maxBytes,
    signal,
  });
  if (scan.binary !== undefined) {
    return ToolResponse.error(
      'BINARY_FILE',
      `${target.relative} looks binary (${scan.binary} in the first ${BINARY_SNIFF_BYTES} bytes); read_file returns text only`,
      { data: { path: target.relative, size: info.size } },
    );
  }
  if (first > Math.max(scan.totalLines, 1)) {
    return ToolResponse.error(
      'INVALID_PARAM',
      `offset ${first} is past the end of ${target.relative}, which has ${scan.totalLines} lines`,
      { data: { path: target.relative, totalLines: scan.totalLines } },
    );
  }
  const data = {
    path: target.relative,
    content: scan.content,
    totalLines: scan.totalLines,
    startLine: scan.totalLines === 0 ? 0 : first,
    endLine: scan.endLine,
    size: info.size,
    mtimeMs: info.mtimeMs,
    mtime: info.mtime.toISOString(),
    sha256: scan.sha256,
  };
  if (!scan.capped) return ToolResponse.success(scan.content, { data });
  const range = scan.truncatedLine
    ? `the first ${maxBytes} bytes of line ${first}`
    : `lines ${first}-${scan.endLine}`;
  return ToolResponse.partial(
    `${scan.content}\n[read_file: returned ${range} of ${scan.totalLines}; the cap is ${maxBytes} bytes. Continue with offset ${scan.truncatedLine ? first + 1 : scan.endLine + 1}.]`,
    {
      reason: 'size_cap',
      data: {
        ...data,
        truncated: true,
        truncatedLine: scan.truncatedLine,
        maxBytes,
      },
    },
  );
}
