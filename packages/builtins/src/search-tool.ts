import { constants } from 'node:fs';
import { ToolError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { errorResponse } from './error-response.ts';
import { findExecutable } from './find-executable.ts';
import { positiveOption } from './positive-option.ts';
import {
  displayLine,
  MAX_LINE_CHARS,
  type SearchMatch,
  type SearchRequest,
  type SearchResult,
} from './search-engine.ts';
import { type SearchStart, searchWithJs } from './search-js.ts';
import { checkInclude, compileSearchPattern } from './search-pattern.ts';
import { searchWithRg } from './search-rg.ts';
import { type GuardedPath, WorkspaceGuard } from './workspace-guard.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Which engine runs a search. */
export type SearchEngineChoice = 'auto' | 'rg' | 'js';

/** Options of {@link searchTool}. */
export interface SearchToolOptions {
  /** Every path resolves inside this directory. */
  readonly root: string;
  /** The most matches one call returns; more is PARTIAL with the total. 200. */
  readonly maxMatches?: number;
  /**
   * `auto` (the default) uses ripgrep when `rg` is on PATH and the JavaScript engine otherwise;
   * `rg` fails calls when ripgrep is missing; `js` never starts a process.
   */
  readonly engine?: SearchEngineChoice;
  /** The ripgrep executable; `rg`, looked up in PATH. */
  readonly rgPath?: string;
}

/**
 * Opens what a search starts from through the root's descriptor: a directory to walk or a
 * regular file. A FIFO, socket or device is refused before anything blocks on it.
 */
async function openStart(
  guard: WorkspaceGuard,
  target: GuardedPath,
): Promise<SearchStart> {
  const { dir, name } = await guard.openParent(target);
  if (name === undefined) return { dir };
  try {
    const info = await dir.lstat(name);
    if (info.isDirectory()) return { dir: await dir.openDir(name) };
    if (!info.isFile()) {
      throw new ToolError({
        code: 'INVALID_PARAM',
        message: `${target.relative} is not a regular file or directory (a FIFO, socket or device); search reads regular files only`,
        details: { path: target.relative },
      });
    }
    const file = await dir.openFile(name, constants.O_RDONLY);
    if (!(await file.stat()).isFile()) {
      await file.close();
      throw new ToolError({
        code: 'INVALID_PARAM',
        message: `${target.relative} is not a regular file`,
        details: { path: target.relative },
      });
    }
    return { file };
  } finally {
    await dir.close();
  }
}

/**
 * ripgrep walks by path, so a directory swapped for a link mid-walk could make it read outside
 * the root. Every match it reports is read again through the root's descriptor and kept only
 * when that line is there, inside the workspace; the rest are dropped from the result.
 */
async function verifiedMatches(
  guard: WorkspaceGuard,
  result: SearchResult,
): Promise<SearchResult> {
  const lines = new Map<string, readonly string[] | undefined>();
  const kept: SearchMatch[] = [];
  for (const match of result.matches) {
    if (!lines.has(match.path)) {
      lines.set(match.path, await linesOf(guard, match.path));
    }
    const line = lines.get(match.path)?.[match.line - 1];
    if (
      line !== undefined &&
      displayLine(line, MAX_LINE_CHARS) === match.text
    ) {
      kept.push(match);
    }
  }
  return {
    matches: kept,
    count: result.count - (result.matches.length - kept.length),
  };
}

async function linesOf(
  guard: WorkspaceGuard,
  path: string,
): Promise<readonly string[] | undefined> {
  try {
    const start = await openStart(guard, await guard.resolve(path));
    if ('dir' in start) {
      await start.dir.close();
      return undefined;
    }
    const bytes = await start.file.readFile().finally(() => start.file.close());
    return bytes.toString('utf8').split('\n');
  } catch {
    return undefined;
  }
}

function formatMatches(matches: readonly SearchMatch[]): string {
  return matches
    .map((match) => `${match.path}:${match.line}: ${match.text}`)
    .join('\n');
}

/**
 * `search`: finds lines matching a regular expression (or a fixed string) in the files under a
 * path in the workspace. ripgrep runs it when installed, a JavaScript engine with the same
 * semantics otherwise.
 *
 * Outcomes: SUCCESS with `data.matches` and `data.count`, including `count: 0` when nothing
 * matches (no matches is an answer, not an error); PARTIAL (`reason: 'match_cap'`) with the
 * total when there are more matches than the cap; INVALID_PARAM for an invalid regular
 * expression, naming the problem; EXECUTION_ERROR when the search itself fails (ripgrep exit 2,
 * an unreadable directory); NOT_FOUND; ACCESS_DENIED for paths outside the root.
 *
 * @example
 * ```ts
 * registry.register(searchTool({ root: process.cwd() }));
 * await registry.call('search', { pattern: 'TODO\\(\\w+\\)', include: '*.ts' });
 * ```
 */
export function searchTool(options: SearchToolOptions) {
  const guard = new WorkspaceGuard(options.root);
  const cap = positiveOption('searchTool: maxMatches', options.maxMatches, 200);
  const choice = options.engine ?? 'auto';
  let rgLookup: Promise<string | undefined> | undefined;
  const findRg = (): Promise<string | undefined> => {
    rgLookup ??= findExecutable(
      options.rgPath ?? 'rg',
      process.env['PATH'] ?? '',
      process.cwd(),
    ).then((found) => ('path' in found ? found.path : undefined));
    return rgLookup;
  };
  return defineTool({
    name: 'search',
    ...builtinTraits('search'),
    description:
      'Searches files in the workspace for lines matching a regular expression (or a fixed string) ' +
      'and returns path, line number and text of each. No matches is a successful answer with count 0. ' +
      `Hidden files, binary files and symbolic links are skipped; at most ${cap} matches are returned, with the total.`,
    input: z.object({
      pattern: z
        .string()
        .min(1)
        .describe(
          'A regular expression (no look-around or backreferences), or a fixed string with fixedStrings',
        ),
      path: z
        .string()
        .min(1)
        .default('.')
        .describe(
          'Directory or file to search, relative to the workspace root',
        ),
      include: z
        .string()
        .min(1)
        .optional()
        .describe('Only files whose name matches this glob, e.g. "*.ts"'),
      fixedStrings: z
        .boolean()
        .default(false)
        .describe('Treat the pattern as plain text'),
      caseSensitive: z.boolean().default(true),
      maxMatches: z
        .number()
        .int()
        .positive()
        .max(cap)
        .optional()
        .describe(`Most matches to return. Default and maximum ${cap}.`),
    }),
    run: async (input, context) => {
      try {
        checkInclude(input.include);
        // Vetted here, so a bad pattern gets the same answer from both engines.
        const compiled = compileSearchPattern(input);
        const target = await guard.resolve(input.path);
        const start = await openStart(guard, target);
        try {
          const rg = choice === 'js' ? undefined : await findRg();
          if (choice === 'rg' && rg === undefined) {
            return ToolResponse.error(
              'EXECUTION_ERROR',
              'The search tool is configured to use ripgrep, but rg was not found on PATH',
              { retryable: false },
            );
          }
          const request: SearchRequest = {
            root: await guard.realRoot(),
            target: target.absolute,
            pattern: input.pattern,
            compiled,
            fixedStrings: input.fixedStrings,
            caseSensitive: input.caseSensitive,
            include: input.include,
            limit: input.maxMatches ?? cap,
            maxLineChars: MAX_LINE_CHARS,
            signal: context.signal,
          };
          const engine = rg === undefined ? 'js' : 'rg';
          const result: SearchResult =
            rg === undefined
              ? await searchWithJs(request, start)
              : await verifiedMatches(guard, await searchWithRg(request, rg));
          const data = {
            engine,
            pattern: input.pattern,
            path: target.relative,
            matches: result.matches,
            count: result.count,
          };
          if (result.count === 0) {
            return ToolResponse.success(
              `No matches for ${JSON.stringify(input.pattern)} in ${target.relative}`,
              { data },
            );
          }
          if (result.count <= request.limit) {
            return ToolResponse.success(formatMatches(result.matches), {
              data,
            });
          }
          return ToolResponse.partial(
            `${formatMatches(result.matches)}\n[search: showed ${result.matches.length} of ${result.count} matching lines]`,
            { reason: 'match_cap', data: { ...data, truncated: true } },
          );
        } finally {
          await ('dir' in start ? start.dir.close() : start.file.close());
        }
      } catch (error: unknown) {
        return errorResponse(error, input.path);
      }
    },
  });
}
