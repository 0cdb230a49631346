import { allOf, anyOf, type Condition } from './condition.ts';
import {
  compilePath,
  firstKeyOf,
  type JsonPath,
  type PathReader,
} from './json-path.ts';
import { compileLineFilter, type LineFilter } from './line-filter.ts';
import { indexRules, type RuleIndex } from './rule-index.ts';
import {
  TraceTableError,
  type TraceTableProblem,
} from './trace-table-error.ts';
import {
  TraceTableSchema,
  TranslationMapSchema,
  type TraceTableDefinition,
} from './trace-table-schema.ts';
import { isObservedOutcome, type ObservedOutcome } from '@candor/tools';

// Every compiled object of a kind has the same keys in the same order (unused ones hold
// neutral values), so property reads on the per-line path stay monomorphic and fast.

/** A compiled predicate: one check (`op`) on the value at `path`. */
export interface Predicate {
  readonly path: JsonPath;
  readonly op: 'equals' | 'in' | 'exists' | 'matches';
  /** For `equals`. */
  readonly value: unknown;
  /** For `in`. */
  readonly values: ReadonlySet<unknown>;
  /** For `exists`. */
  readonly expected: boolean;
  /** For `matches`. */
  readonly pattern: RegExp | undefined;
  /** The predicate compiled: true when it holds for the item (or root). */
  readonly test: Condition;
}

/**
 * A compiled field: the literal `value` if set, else the first of `paths` holding a value (or,
 * for `key_of`, the name of the first field of the object at its one path).
 */
export interface Field {
  readonly paths: readonly JsonPath[];
  readonly value: string | undefined;
  /** The field compiled: its literal, or the first non-null value among its paths. */
  readonly read: PathReader;
}

/** A compiled `status`: where the vendor word is and how it translates. */
export interface StatusSpec {
  readonly from: readonly {
    readonly path: JsonPath;
    readonly word: string | undefined;
    /** The word is the name of the first field of the object at `path` (`key_of`). */
    readonly keyOf: boolean;
  }[];
  readonly mapName: string;
  readonly map: ReadonlyMap<string, ObservedOutcome>;
  /** The translation of any word the map does not list (its `"*"` key), if it has one. */
  readonly otherwise: ObservedOutcome | undefined;
  /** The outcome when no `from` path holds a value, if the table says absence means something. */
  readonly absent: ObservedOutcome | undefined;
}

/** A compiled rule. */
export interface TraceRule {
  readonly kind: 'start' | 'outcome' | 'denial';
  readonly when: readonly Predicate[];
  /** `when` compiled into one check. */
  readonly matches: Condition;
  readonly each: JsonPath | undefined;
  readonly eachWhen: readonly Predicate[];
  /** `eachWhen` compiled into one check. */
  readonly eachMatches: Condition;
  readonly id: Field;
  readonly tool: Field | undefined;
  readonly args: Field | undefined;
  readonly status: StatusSpec | undefined;
  readonly result: Field | undefined;
  readonly exitCode: JsonPath | undefined;
  readonly escalate: readonly {
    readonly when: readonly Predicate[];
    /** `when` compiled into one check. */
    readonly matches: Condition;
    readonly reason: string;
  }[];
  readonly reason: Field | undefined;
  readonly startedAt: Field | undefined;
  readonly endedAt: Field | undefined;
}

/** A validated, compiled harness table, ready for the normaliser. */
export interface TraceTable {
  readonly harness: string;
  readonly description: string;
  /** Where the table came from (a file path or a label). */
  readonly origin: string;
  /** Alternatives: the line is this harness's when every predicate of one alternative holds. */
  readonly detect: readonly (readonly Predicate[])[];
  /** `detect` compiled: true when any alternative holds for a line. */
  readonly detects: Condition;
  /** Lines after which settled calls are emitted (end of a run or turn). */
  readonly flush: readonly (readonly Predicate[])[];
  /** `flush` compiled: true when any alternative holds for a line. */
  readonly flushes: Condition;
  /**
   * Keep settled calls until a flush line (or the window) instead of emitting them at once, for
   * harnesses that report facts after the outcome (claude-code's run-end permission denials)
   * or may repeat an outcome line (opencode).
   */
  readonly holdUntilFlush: boolean;
  /**
   * With {@link holdUntilFlush}: the vendor outcomes that are final on their outcome line, so
   * such a call is emitted there rather than held. Empty: every settled call is held.
   */
  readonly finalOutcomes: ReadonlySet<ObservedOutcome>;
  readonly rules: readonly TraceRule[];
  /** The rules grouped for fast dispatch; derived from `rules`. */
  readonly index: RuleIndex;
  /**
   * Tells apart, before parsing, lines no rule or flush can match; derived from `rules` and
   * `flush`. Undefined when some rule could match any line.
   */
  readonly lineFilter: LineFilter | undefined;
}

type Definition = TraceTableDefinition;
type PredicateDefinition = NonNullable<
  Definition['rules'][number]['when']
>[number];
type FieldDefinition = Definition['rules'][number]['id'];

const noValues: ReadonlySet<unknown> = new Set();

function compilePredicate(definition: PredicateDefinition): Predicate {
  const path = compilePath(definition.path);
  const { read } = path;
  const base = {
    path,
    value: undefined,
    values: noValues,
    expected: true,
    pattern: undefined,
  };
  if (definition.in !== undefined) {
    const values = new Set<unknown>(definition.in);
    return {
      ...base,
      op: 'in',
      values,
      test: (item, root) => values.has(read(item, root)),
    };
  }
  if (definition.exists !== undefined) {
    const expected = definition.exists;
    return {
      ...base,
      op: 'exists',
      expected,
      test: (item, root) => {
        const value = read(item, root);
        return (value !== undefined && value !== null) === expected;
      },
    };
  }
  if (definition.matches !== undefined) {
    // No `g` or `y` flag, so `test` keeps no state between lines.
    const pattern = new RegExp(definition.matches, 'u');
    return {
      ...base,
      op: 'matches',
      pattern,
      test: (item, root) => {
        const value = read(item, root);
        return typeof value === 'string' && pattern.test(value);
      },
    };
  }
  const expected = definition.equals;
  return {
    ...base,
    op: 'equals',
    value: expected,
    test: (item, root) => read(item, root) === expected,
  };
}

function compileCondition(
  definitions: readonly PredicateDefinition[] | undefined,
): { predicates: readonly Predicate[]; matches: Condition } {
  const predicates = (definitions ?? []).map(compilePredicate);
  return {
    predicates,
    matches: allOf(predicates.map((predicate) => predicate.test)),
  };
}

function compileAlternatives(
  alternatives: readonly (readonly PredicateDefinition[])[] | undefined,
): { alternatives: readonly (readonly Predicate[])[]; matches: Condition } {
  const compiled = (alternatives ?? []).map((alternative) =>
    compileCondition(alternative),
  );
  return {
    alternatives: compiled.map((alternative) => alternative.predicates),
    matches: anyOf(compiled.map((alternative) => alternative.matches)),
  };
}

function firstPresent(paths: readonly JsonPath[]): PathReader {
  const [only] = paths;
  if (only !== undefined && paths.length === 1) {
    const { read } = only;
    return (item, root) => {
      const value = read(item, root);
      return value === null ? undefined : value;
    };
  }
  const readers = paths.map((path) => path.read);
  return (item, root) => {
    for (const read of readers) {
      const value = read(item, root);
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  };
}

function compileField(definition: FieldDefinition): Field;
function compileField(
  definition: FieldDefinition | undefined,
): Field | undefined;
function compileField(
  definition: FieldDefinition | undefined,
): Field | undefined {
  if (definition === undefined) return undefined;
  if (typeof definition === 'string' || Array.isArray(definition)) {
    const paths = (
      typeof definition === 'string' ? [definition] : definition
    ).map(compilePath);
    return { paths, value: undefined, read: firstPresent(paths) };
  }
  if ('key_of' in definition) {
    const path = compilePath(definition.key_of);
    const { read } = path;
    return {
      paths: [path],
      value: undefined,
      read: (item, root) => firstKeyOf(read(item, root)),
    };
  }
  const { value } = definition;
  return { paths: [], value, read: () => value };
}

function compileStatus(
  status: NonNullable<Definition['rules'][number]['status']>,
  table: Definition,
): StatusSpec {
  // Validated already; parsing again only recovers the type of an index-signature key.
  const words = TranslationMapSchema.parse(table[status.map]);
  const map = new Map<string, ObservedOutcome>();
  let otherwise: ObservedOutcome | undefined;
  for (const [word, outcome] of Object.entries(words)) {
    if (!isObservedOutcome(outcome)) continue;
    if (word === '*') otherwise = outcome;
    else map.set(word, outcome);
  }
  return {
    from: status.from.map((source) =>
      'key_of' in source
        ? { path: compilePath(source.key_of), word: undefined, keyOf: true }
        : { path: compilePath(source.path), word: source.word, keyOf: false },
    ),
    mapName: status.map,
    map,
    otherwise,
    absent: status.absent,
  };
}

function compileRule(
  rule: Definition['rules'][number],
  table: Definition,
): TraceRule {
  const when = compileCondition(rule.when);
  const eachWhen = compileCondition(rule.each_when);
  return {
    kind: rule.kind,
    when: when.predicates,
    matches: when.matches,
    each: rule.each === undefined ? undefined : compilePath(rule.each),
    eachWhen: eachWhen.predicates,
    eachMatches: eachWhen.matches,
    id: compileField(rule.id),
    tool: compileField(rule.tool),
    args: compileField(rule.args),
    status:
      rule.status === undefined ? undefined : compileStatus(rule.status, table),
    result: compileField(rule.result),
    exitCode:
      rule.exit_code === undefined ? undefined : compilePath(rule.exit_code),
    escalate: (rule.escalate ?? []).map((escalation) => {
      const condition = compileCondition(escalation.when);
      return {
        when: condition.predicates,
        matches: condition.matches,
        reason: escalation.reason,
      };
    }),
    reason: compileField(rule.reason),
    startedAt: compileField(rule.started_at),
    endedAt: compileField(rule.ended_at),
  };
}

function fieldName(path: readonly PropertyKey[]): string {
  let text = '';
  for (const step of path) {
    if (typeof step === 'number') text += `[${step}]`;
    else text += text === '' ? String(step) : `.${String(step)}`;
  }
  return text;
}

/**
 * Validates a parsed table file and compiles it for the normaliser.
 *
 * @throws {TraceTableError} naming `source` and each offending field.
 * @example
 * ```ts
 * const table = parseTraceTable(JSON.parse(text), { source: 'acme.json' });
 * ```
 */
export function parseTraceTable(
  value: unknown,
  options: { readonly source: string },
): TraceTable {
  const parsed = TraceTableSchema.safeParse(value);
  if (!parsed.success) {
    const problems: TraceTableProblem[] = parsed.error.issues.map((issue) => ({
      field: fieldName(issue.path),
      message: issue.message,
    }));
    throw new TraceTableError({ source: options.source, problems });
  }
  return compileTraceTable(parsed.data, options.source);
}

/**
 * Compiles a table that is already known to be valid: {@link parseTraceTable} after its
 * validation, and the package's own tables, whose validation a test performs instead of every
 * process (it cost more than compiling them). Not exported from the package.
 */
export function compileTraceTable(
  table: TraceTableDefinition,
  source: string,
): TraceTable {
  const rules = table.rules.map((rule) => compileRule(rule, table));
  const detect = compileAlternatives(table.detect);
  const flush = compileAlternatives(table.flush);
  const holdUntilFlush = table.hold_until_flush ?? false;
  return {
    harness: table.harness,
    description: table.description ?? '',
    origin: source,
    detect: detect.alternatives,
    detects: detect.matches,
    holdUntilFlush,
    finalOutcomes: new Set(table.final_outcomes ?? []),
    flush: flush.alternatives,
    flushes: flush.matches,
    rules,
    index: indexRules(rules),
    lineFilter: compileLineFilter({
      rules,
      flush: flush.alternatives,
      holdUntilFlush,
    }),
  };
}
