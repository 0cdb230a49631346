import { constants, type Dirent } from 'node:fs';
import { type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describeThrown, ToolError } from '@candor/errors';
import {
  displayLine,
  type SearchMatch,
  type SearchRequest,
  type SearchResult,
} from './search-engine.ts';
import { compileSearchPattern, includeMatcher } from './search-pattern.ts';
import { type WorkspaceDir } from './workspace-dir.ts';

/** Where the JS engine starts: an opened directory to walk, or an opened file. */
export type SearchStart =
  { readonly dir: WorkspaceDir } | { readonly file: FileHandle };

interface WalkedFile {
  readonly path: string;
  readonly read: () => Promise<Buffer | undefined>;
}

/** ripgrep decides a walked file is binary from its first buffer; so does this engine. */
const BINARY_WINDOW = 64 * 1024;

/** ripgrep sorts by the bytes of the name; UTF-16 order differs for some non-ASCII names. */
function byName(a: Dirent, b: Dirent): number {
  return Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
}

/**
 * Files under `directory` in ripgrep's order: sorted by name, depth first, hidden skipped. Each
 * name is opened in its opened parent without following links, so a directory swapped for a
 * link while the walk runs is refused instead of followed; FIFOs, sockets and devices are
 * skipped without being opened for long (O_NONBLOCK).
 */
async function* walk(
  directory: WorkspaceDir,
  path: string,
  filter: {
    readonly include: (name: string) => boolean;
    readonly signal: AbortSignal;
  },
): AsyncGenerator<WalkedFile> {
  const { include, signal } = filter;
  signal.throwIfAborted();
  const entries = await directory.readdir();
  for (const entry of entries.sort(byName)) {
    if (entry.name.startsWith('.')) continue;
    const child = join(path, entry.name);
    // Symbolic links are not followed, as in ripgrep's default.
    if (entry.isDirectory()) {
      const sub = await directory.openDir(entry.name);
      try {
        yield* walk(sub, child, filter);
      } finally {
        await sub.close();
      }
    } else if (entry.isFile() && include(entry.name)) {
      yield {
        path: child,
        read: async () => {
          const handle = await directory.openFile(
            entry.name,
            constants.O_RDONLY,
          );
          return readRegular(handle);
        },
      };
    }
  }
}

/** The bytes of an opened regular file; undefined (skipped) when it is anything else. */
async function readRegular(handle: FileHandle): Promise<Buffer | undefined> {
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * The JavaScript search engine, for machines without ripgrep. Same semantics as the ripgrep
 * engine: hidden files and directories are skipped, ignore files are not read, symbolic links
 * are not followed, a walked file with a NUL byte in its first 64 KiB is skipped as binary, and
 * a matching line is counted once.
 */
export async function searchWithJs(
  request: SearchRequest,
  start: SearchStart,
): Promise<SearchResult> {
  const regex = compileSearchPattern(request);
  const include = includeMatcher(request.include);
  const matches: SearchMatch[] = [];
  let count = 0;
  const files: AsyncIterable<WalkedFile> | Iterable<WalkedFile> =
    'dir' in start
      ? walk(start.dir, request.target, { include, signal: request.signal })
      : [{ path: request.target, read: () => start.file.readFile() }];
  try {
    for await (const file of files) {
      request.signal.throwIfAborted();
      const bytes = await file.read();
      if (bytes === undefined) continue;
      count += searchFile({
        request,
        regex,
        file: file.path,
        matches,
        bytes,
      });
    }
  } catch (error: unknown) {
    if (request.signal.aborted) throw error;
    // Like ripgrep's exit 2: the search itself failed, whatever the pattern.
    throw new ToolError({
      code: 'EXECUTION_ERROR',
      message: `The search failed: ${describeThrown(error)}`,
      cause: error,
    });
  }
  return { matches, count };
}

interface FileSearch {
  readonly request: SearchRequest;
  readonly regex: RegExp;
  readonly file: string;
  readonly bytes: Buffer;
  /** Filled up to the request's limit. */
  readonly matches: SearchMatch[];
}

/** Searches one file's bytes; returns how many lines matched. */
function searchFile({
  request,
  regex,
  file,
  bytes,
  matches,
}: FileSearch): number {
  let count = 0;
  const explicit = file === request.target;
  const nul = bytes.indexOf(0);
  if (!explicit && nul !== -1 && nul < BINARY_WINDOW) return 0;
  // Past the window, ripgrep stops at the NUL byte; lines before it still count.
  const text = (
    !explicit && nul !== -1 ? bytes.subarray(0, nul) : bytes
  ).toString('utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const path = relative(request.root, file).split(sep).join('/');
  lines.forEach((line, index) => {
    if (!regex.test(line)) return;
    count += 1;
    if (matches.length < request.limit) {
      matches.push({
        path,
        line: index + 1,
        text: displayLine(line, request.maxLineChars),
      });
    }
  });
  return count;
}
