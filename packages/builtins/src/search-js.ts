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
import { includeMatcher } from './search-pattern.ts';
import { type WorkspaceDir } from './workspace-dir.ts';

/** Where the JS engine starts: an opened directory to walk, or an opened file. */
export type SearchStart =
  { readonly dir: WorkspaceDir } | { readonly file: FileHandle };

interface WalkedFile {
  readonly path: string;
  readonly read: () => Promise<Buffer | undefined>;
}

/** ripgrep's first read buffer; a line longer than the buffer makes it grow, for good. */
const FIRST_BUFFER = 64 * 1024;
/** How long the engine may run before it lets the event loop turn (and a deadline fire). */
const SLICE_MS = 20;

/**
 * ripgrep's reading of a walked file, replayed: it fills a buffer, searches up to the last line
 * break in it, carries the rest over and fills again, growing the buffer to three times its size
 * when one line does not fit. The buffer is kept from file to file. The first fill whose new
 * bytes hold a NUL ends the file as binary, and nothing of that fill is searched. Returns how
 * many leading bytes are searched.
 */
export class RipgrepReads {
  #capacity = FIRST_BUFFER;

  /** The searched length of `bytes`, growing the buffer as ripgrep would. */
  searchedLength(bytes: Uint8Array): number {
    const nul = bytes.indexOf(0);
    let searched = 0;
    let end = 0;
    for (;;) {
      if (end - searched === this.#capacity) this.#capacity *= 3;
      const read = Math.min(
        this.#capacity - (end - searched),
        bytes.length - end,
      );
      if (read === 0) return bytes.length;
      const before = end;
      end += read;
      if (nul !== -1 && nul < end) return searched;
      const lastBreak = bytes.lastIndexOf(10, end - 1);
      if (lastBreak >= before) searched = lastBreak + 1;
    }
  }
}

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
 * are not followed, a walked file is searched up to where ripgrep stops at a NUL byte, and a
 * matching line is counted once.
 */
export async function searchWithJs(
  request: SearchRequest,
  start: SearchStart,
): Promise<SearchResult> {
  const reads = new RipgrepReads();
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
      count += await searchFile({
        request,
        file: file.path,
        matches,
        // A file given as the path is searched whole, binary or not, as ripgrep does.
        bytes:
          file.path === request.target
            ? bytes
            : bytes.subarray(0, reads.searchedLength(bytes)),
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
  readonly file: string;
  readonly bytes: Buffer;
  /** Filled up to the request's limit. */
  readonly matches: SearchMatch[];
}

/**
 * Searches one file's bytes; returns how many lines matched. re2js runs in time linear in the
 * line, and the loop yields to the event loop every few milliseconds, so a large file neither
 * stalls the process nor outlives the call's deadline.
 */
async function searchFile({
  request,
  file,
  bytes,
  matches,
}: FileSearch): Promise<number> {
  let count = 0;
  const regex = request.compiled.js;
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const path = relative(request.root, file).split(sep).join('/');
  let slice = performance.now();
  for (const [index, line] of lines.entries()) {
    if (performance.now() - slice > SLICE_MS) {
      await new Promise(setImmediate);
      request.signal.throwIfAborted();
      slice = performance.now();
    }
    if (!regex.test(line)) continue;
    count += 1;
    if (matches.length < request.limit) {
      matches.push({
        path,
        line: index + 1,
        text: displayLine(line, request.maxLineChars),
      });
    }
  }
  return count;
}
