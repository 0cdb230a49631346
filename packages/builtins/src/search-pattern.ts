import { ToolError } from '@candor/errors';
import { RE2JS } from 're2js';

const INCLUDE = /^[^/\\[\]{}!]+$/;

/**
 * The ASCII classes both engines give `\d`, `\w` and `\s`: RE2's own definitions (`\s` has no
 * vertical tab). Rust's are Unicode, so ripgrep is handed these explicit classes instead.
 */
const PERL_CLASSES: Readonly<Record<string, string>> = {
  d: '[0-9]',
  D: '[^0-9]',
  w: '[0-9A-Za-z_]',
  W: '[^0-9A-Za-z_]',
  s: '[\\t\\n\\f\\r ]',
  S: '[^\\t\\n\\f\\r ]',
};
/** Escapes with one meaning in both dialects. `\n` is refused earlier. */
const PLAIN_ESCAPES = new Set('afrtvAz.+*?()|[]{}^$#&-~\\');
const REPETITION = /^\{\d+(?:,\d*)?\}/;

/** A search pattern in the one dialect: `js` for re2js, `rg` for ripgrep. */
export interface SearchPattern {
  readonly js: RE2JS;
  readonly rg: string;
}

function refuse(pattern: string, reason: string): never {
  throw new ToolError({
    code: 'INVALID_PARAM',
    message: `Invalid pattern ${JSON.stringify(pattern)}: ${reason}`,
    details: { pattern },
  });
}

/** The end of `\p{..}`/`\pL` or `\x{..}`/`\xHH` starting at `start` (the letter after `\`). */
function escapeEnd(pattern: string, start: number): number {
  if (pattern[start + 1] === '{') {
    const close = pattern.indexOf('}', start + 2);
    return close === -1 ? pattern.length : close + 1;
  }
  return pattern[start] === 'x' ? start + 3 : start + 2;
}

/**
 * Reads a pattern once, refusing what RE2 (the JavaScript engine) and Rust's regex (ripgrep)
 * would read differently, and returns ripgrep's spelling of it: the same pattern with `\d`, `\w`,
 * `\s` as explicit ASCII classes and `\b` as the ASCII word boundary.
 */
function ripgrepSpelling(pattern: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const char = pattern.charAt(i);
    if (char === '\\') {
      const next = pattern.charAt(i + 1);
      const perl = PERL_CLASSES[next];
      if (perl !== undefined) {
        // Rust takes a class inside a class as a union, so the same spelling works in both places.
        out += perl;
        i += 2;
      } else if (next === 'b' || next === 'B') {
        if (inClass) refuse(pattern, `\\${next} is not allowed in a class`);
        out += `(?-u:\\${next})`;
        i += 2;
      } else if (next === 'p' || next === 'P' || next === 'x') {
        const end = escapeEnd(pattern, i + 1);
        out += pattern.slice(i, end);
        i = end;
      } else if (/[0-9k]/.test(next)) {
        refuse(pattern, 'look-around and backreferences are not supported');
      } else if (PLAIN_ESCAPES.has(next)) {
        out += pattern.slice(i, i + 2);
        i += 2;
      } else {
        refuse(
          pattern,
          `the escape \\${next} is not supported (ripgrep's dialect has no such escape)`,
        );
      }
      continue;
    }
    if (inClass) {
      if (char === '[') {
        const posix = /^\[:\^?[a-z]+:\]/.exec(pattern.slice(i));
        if (posix === null) {
          refuse(
            pattern,
            'a [ inside a character class must be escaped (\\[); nested classes are not supported',
          );
        }
        out += posix[0];
        i += posix[0].length;
        continue;
      }
      const pair = pattern.slice(i, i + 2);
      if (pair === '&&' || pair === '--' || pair === '~~') {
        refuse(
          pattern,
          `${pair} inside a character class is not supported (class set operations); escape it`,
        );
      }
      if (char === ']') inClass = false;
      out += char;
      i += 1;
      continue;
    }
    if (char === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal, in both dialects.
      const head = /^\[\^?\]?/.exec(pattern.slice(i))?.[0] ?? '[';
      out += head;
      i += head.length;
      continue;
    }
    if (char === '(' && pattern.startsWith('(?<', i)) {
      refuse(
        pattern,
        /^\(\?<[=!]/.test(pattern.slice(i))
          ? 'look-around and backreferences are not supported'
          : 'name a group with (?P<name>...)',
      );
    }
    if (char === '(' && /^\(\?[=!]/.test(pattern.slice(i))) {
      refuse(pattern, 'look-around and backreferences are not supported');
    }
    if (char === '{') {
      const repetition = REPETITION.exec(pattern.slice(i));
      if (repetition === null) {
        refuse(
          pattern,
          'a { must start a repetition such as {2} or {1,3}; escape a literal one as \\{',
        );
      }
      out += repetition[0];
      i += repetition[0].length;
      continue;
    }
    out += char;
    i += 1;
  }
  return out;
}

/**
 * A search pattern, vetted and compiled for both engines: re2js (RE2's linear-time engine, so
 * no pattern can stall the process) and ripgrep (Rust's regex, also linear). A bad pattern, or
 * one the two would read differently, is INVALID_PARAM with the reason.
 */
export function compileSearchPattern(request: {
  readonly pattern: string;
  readonly fixedStrings: boolean;
  readonly caseSensitive: boolean;
}): SearchPattern {
  const { pattern } = request;
  if (
    pattern.includes('\n') ||
    (!request.fixedStrings && /(?:^|[^\\])(?:\\\\)*\\n/.test(pattern))
  ) {
    // Lines are matched one at a time, so a line break can never match; ripgrep refuses it too.
    refuse(
      pattern,
      'it contains a line break (\\n); search matches within one line',
    );
  }
  const flags = request.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  if (request.fixedStrings) {
    return { js: RE2JS.compile(RE2JS.quote(pattern), flags), rg: pattern };
  }
  const rg = ripgrepSpelling(pattern);
  try {
    return { js: RE2JS.compile(pattern, flags), rg };
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}`,
      details: { pattern },
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

/** ripgrep's spelling of an include glob: a run of `*` is one `*` (`**` is a path glob there). */
export function ripgrepInclude(include: string): string {
  return include.replace(/\*+/g, '*');
}

/** A name's UTF-8 bytes, one character per byte, so a regular expression can match bytes. */
function byteString(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/**
 * A test for file names against an include glob; everything passes without one. As in
 * ripgrep, the glob matches the bytes of the name: `?` is one byte, so a non-ASCII character
 * takes one `?` per byte of its UTF-8 form.
 */
export function includeMatcher(
  include: string | undefined,
): (name: string) => boolean {
  if (include === undefined) return () => true;
  const source = byteString(include)
    .split('')
    .map((char) => {
      if (char === '*') return '.*';
      if (char === '?') return '.';
      return char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('');
  const regex = new RegExp(`^${source}$`, 's');
  return (name) => regex.test(byteString(name));
}
