import { ToolError } from '@candor/errors';
import { type SearchRequest } from './search-engine.ts';

// ripgrep's default regex engine has neither; refusing them in both engines keeps one dialect.
const UNSUPPORTED = /\(\?<?[=!]|\\[1-9]|\\k</;
const INCLUDE = /^[^/\\[\]{}!]+$/;

function escapeRegExp(text: string): string {
  // Only syntax characters: with the u flag, escaping anything else is an error.
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The JavaScript form of a search pattern, also used to vet patterns before ripgrep sees them.
 * A bad pattern is INVALID_PARAM with the parser's own explanation.
 */
export function compileSearchPattern(
  request: Pick<SearchRequest, 'pattern' | 'fixedStrings' | 'caseSensitive'>,
): RegExp {
  const flags = request.caseSensitive ? 'u' : 'iu';
  if (
    request.pattern.includes('\n') ||
    (!request.fixedStrings && /(?:^|[^\\])(?:\\\\)*\\n/.test(request.pattern))
  ) {
    // Lines are matched one at a time, so a line break can never match; ripgrep refuses it too.
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: `Invalid pattern ${JSON.stringify(request.pattern)}: it contains a line break (\\n); search matches within one line`,
      details: { pattern: request.pattern },
    });
  }
  if (request.fixedStrings)
    return new RegExp(escapeRegExp(request.pattern), flags);
  if (UNSUPPORTED.test(request.pattern)) {
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: `Invalid pattern ${JSON.stringify(request.pattern)}: look-around and backreferences are not supported`,
      details: { pattern: request.pattern },
    });
  }
  try {
    return new RegExp(request.pattern, flags);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: `Invalid regular expression ${JSON.stringify(request.pattern)}: ${reason}`,
      details: { pattern: request.pattern },
    });
  }
}

/** Checks an include glob: `*` and `?` on file names, which both engines read the same way. */
export function checkInclude(include: string | undefined): void {
  if (include !== undefined && !INCLUDE.test(include)) {
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: `Invalid include ${JSON.stringify(include)}: use * and ? on file names, e.g. "*.ts"; no slashes, brackets, braces or ! (negation)`,
      details: { include },
    });
  }
}

/** A test for file names against an include glob; everything passes without one. */
export function includeMatcher(
  include: string | undefined,
): (name: string) => boolean {
  if (include === undefined) return () => true;
  const source = include
    .split('')
    .map((char) => {
      if (char === '*') return '.*';
      if (char === '?') return '.';
      return escapeRegExp(char);
    })
    .join('');
  const regex = new RegExp(`^${source}$`, 'su');
  return (name) => regex.test(name);
}
