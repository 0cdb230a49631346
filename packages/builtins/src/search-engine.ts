import { type SearchPattern } from './search-pattern.ts';

/** One matching line. */
export interface SearchMatch {
  /** Relative to the workspace root, with `/` separators. */
  readonly path: string;
  /** Counting from 1. */
  readonly line: number;
  /** The line without its line ending, cut to a bounded length. */
  readonly text: string;
}

/** What an engine is asked. Both engines give the same answer to the same request. */
export interface SearchRequest {
  /** The real workspace root; match paths are relative to it. */
  readonly root: string;
  /** The real path searched: a directory (walked) or a file (searched as given). */
  readonly target: string;
  readonly pattern: string;
  /** The pattern, vetted and compiled for both engines. */
  readonly compiled: SearchPattern;
  readonly fixedStrings: boolean;
  readonly caseSensitive: boolean;
  /** A file-name glob with `*` and `?` only. */
  readonly include: string | undefined;
  /** Matches kept; every match is still counted. */
  readonly limit: number;
  readonly maxLineChars: number;
  readonly signal: AbortSignal;
}

/** What an engine found. */
export interface SearchResult {
  readonly matches: readonly SearchMatch[];
  /** Every matching line, including those past the limit. */
  readonly count: number;
}

/** The longest line text a match shows before it is cut. */
export const MAX_LINE_CHARS = 500;

/** Cuts a matched line for display: drops the line ending and bounds its length. */
export function displayLine(line: string, maxChars: number): string {
  const bare = line.replace(/\r?\n$/, '').replace(/\r$/, '');
  return bare.length > maxChars ? `${bare.slice(0, maxChars)}…` : bare;
}
