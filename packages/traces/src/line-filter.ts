import type { Predicate } from './parse-trace-table.ts';

/**
 * A cheap test on a raw line: false only when no rule (and no flush line) of the table can match
 * it, so the line need not be parsed at all. True means "parse it and see".
 */
export type LineFilter = (text: string) => boolean;

// Literals whose only spelling in a JSON text without `\u` escapes is themselves, and which
// cannot run across the gap between two strings: printable ASCII without the quote, the
// backslash, the slash (which may be written `\/`), the space and the structural characters.
// Between any two strings of a JSON text stands a `,` or a `:`, so a match of `"literal"` can
// never take the opening quote of a real string from it.
const plainLiteral =
  /^[\x21\x23-\x2b\x2d\x2e\x30-\x39\x3b-\x5a\x5e-\x7a\x7c\x7e]+$/u;

// Needles are numbered; a bit mask says which of them a line contains. Beyond this many the
// masks would not fit a small integer, and the table is left unfiltered.
const maxNeedles = 30;

// One mask per clause: the clause holds when the line contains any needle of its mask, a
// requirement when all its clauses hold. A parsed line can only satisfy `equals "x"` (or `in`)
// when its text contains `"x"`.
type Requirement = readonly number[];

function clauseOf(
  predicate: Predicate,
  numberOf: (needle: string) => number,
): number | undefined {
  const values =
    predicate.op === 'equals'
      ? [predicate.value]
      : predicate.op === 'in'
        ? [...predicate.values]
        : [];
  if (values.length === 0) return undefined;
  let mask = 0;
  for (const value of values) {
    // A number has many spellings (1, 1.0, 1e0); such a predicate cannot narrow the search.
    if (typeof value !== 'string' || !plainLiteral.test(value)) {
      return undefined;
    }
    mask |= 1 << numberOf(`"${value}"`);
  }
  return mask;
}

function escapeForPattern(needle: string): string {
  return needle.replace(/[.*+?^$()|[\]{}\\]/gu, '\\$&');
}

/**
 * Compiles the filter of a table from the literals its rules (and flush lines) require: each
 * `equals` or `in` predicate on a string, in `when` or `each_when`. A rule with no such
 * predicate could match any line, and then there is no filter (undefined).
 *
 * Skipping is safe only for a line that is plainly one JSON object (`{` … `}`) and has no `\u`
 * escape, the only other way to spell a required literal; any other line is parsed as before,
 * so truncated lines and lines that are not objects are still counted as malformed.
 */
export function compileLineFilter(table: {
  readonly rules: readonly {
    readonly when: readonly Predicate[];
    readonly eachWhen: readonly Predicate[];
  }[];
  readonly flush: readonly (readonly Predicate[])[];
  readonly holdUntilFlush: boolean;
}): LineFilter | undefined {
  const numbers = new Map<string, number>();
  const numberOf = (needle: string): number => {
    let number = numbers.get(needle);
    if (number === undefined) {
      number = numbers.size;
      numbers.set(needle, number);
    }
    return number;
  };
  const requirementOf = (predicates: readonly Predicate[]): Requirement => {
    const clauses: number[] = [];
    for (const predicate of predicates) {
      const clause = clauseOf(predicate, numberOf);
      if (clause !== undefined) clauses.push(clause);
    }
    return clauses;
  };
  const requirements: Requirement[] = table.rules.map((rule) =>
    requirementOf([...rule.when, ...rule.eachWhen]),
  );
  // Without hold_until_flush, calls are flushed on their outcome line itself: no other line
  // flushes anything.
  if (table.holdUntilFlush) {
    for (const alternative of table.flush) {
      requirements.push(requirementOf(alternative));
    }
  }
  if (
    numbers.size > maxNeedles ||
    requirements.some((requirement) => requirement.length === 0)
  ) {
    return undefined;
  }
  const satisfied = (found: number): boolean => {
    for (const requirement of requirements) {
      let holds = true;
      for (const clause of requirement) {
        if ((found & clause) === 0) {
          holds = false;
          break;
        }
      }
      if (holds) return true;
    }
    return false;
  };
  // One pass over the line finds every needle it contains, in order, until a rule is satisfied.
  const pattern = new RegExp(
    [...numbers.keys()].map(escapeForPattern).join('|'),
    'gu',
  );
  return (text) => {
    pattern.lastIndex = 0;
    let found = 0;
    for (
      let match = pattern.exec(text);
      match !== null;
      match = pattern.exec(text)
    ) {
      found |= 1 << (numbers.get(match[0]) ?? 0);
      if (satisfied(found)) return true;
    }
    return (
      text.charCodeAt(0) !== 0x7b ||
      text.charCodeAt(text.length - 1) !== 0x7d ||
      text.includes('\\u')
    );
  };
}
