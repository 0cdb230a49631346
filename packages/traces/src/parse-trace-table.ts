import { compilePath, type JsonPath } from './json-path.ts';
import { isOutcome, type Outcome } from './outcome.ts';
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
}

/** A compiled field: the literal `value` if set, else the first of `paths` holding a value. */
export interface Field {
  readonly paths: readonly JsonPath[];
  readonly value: string | undefined;
}

/** A compiled `status`: where the vendor word is and how it translates. */
export interface StatusSpec {
  readonly from: readonly {
    readonly path: JsonPath;
    readonly word: string | undefined;
  }[];
  readonly mapName: string;
  readonly map: ReadonlyMap<string, Outcome>;
  /** The translation of any word the map does not list (its `"*"` key), if it has one. */
  readonly otherwise: Outcome | undefined;
  /** The outcome when no `from` path holds a value, if the table says absence means something. */
  readonly absent: Outcome | undefined;
}

/** A compiled rule. */
export interface TraceRule {
  readonly kind: 'start' | 'outcome' | 'denial';
  readonly when: readonly Predicate[];
  readonly each: JsonPath | undefined;
  readonly eachWhen: readonly Predicate[];
  readonly id: Field;
  readonly tool: Field | undefined;
  readonly args: Field | undefined;
  readonly status: StatusSpec | undefined;
  readonly result: Field | undefined;
  readonly exitCode: JsonPath | undefined;
  readonly escalate: readonly {
    readonly when: readonly Predicate[];
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
  /** Lines after which settled calls are emitted (end of a run or turn). */
  readonly flush: readonly (readonly Predicate[])[];
  /**
   * Keep settled calls until a flush line (or the window) instead of emitting them at once, for
   * harnesses that report facts after the outcome (claude-code's run-end permission denials)
   * or may repeat an outcome line (opencode).
   */
  readonly holdUntilFlush: boolean;
  readonly rules: readonly TraceRule[];
  /** The rules grouped for fast dispatch; derived from `rules`. */
  readonly index: RuleIndex;
}

type Definition = TraceTableDefinition;
type PredicateDefinition = NonNullable<
  Definition['rules'][number]['when']
>[number];
type FieldDefinition = Definition['rules'][number]['id'];

const noValues: ReadonlySet<unknown> = new Set();

function compilePredicate(definition: PredicateDefinition): Predicate {
  const base = {
    path: compilePath(definition.path),
    value: undefined,
    values: noValues,
    expected: true,
    pattern: undefined,
  };
  if (definition.in !== undefined) {
    return { ...base, op: 'in', values: new Set<unknown>(definition.in) };
  }
  if (definition.exists !== undefined) {
    return { ...base, op: 'exists', expected: definition.exists };
  }
  if (definition.matches !== undefined) {
    return {
      ...base,
      op: 'matches',
      pattern: new RegExp(definition.matches, 'u'),
    };
  }
  return { ...base, op: 'equals', value: definition.equals };
}

function compileField(definition: FieldDefinition): Field;
function compileField(
  definition: FieldDefinition | undefined,
): Field | undefined;
function compileField(
  definition: FieldDefinition | undefined,
): Field | undefined {
  if (definition === undefined) return undefined;
  if (typeof definition === 'string') {
    return { paths: [compilePath(definition)], value: undefined };
  }
  if (Array.isArray(definition)) {
    return { paths: definition.map(compilePath), value: undefined };
  }
  return { paths: [], value: definition.value };
}

function compileStatus(
  status: NonNullable<Definition['rules'][number]['status']>,
  table: Definition,
): StatusSpec {
  // Validated already; parsing again only recovers the type of an index-signature key.
  const words = TranslationMapSchema.parse(table[status.map]);
  const map = new Map<string, Outcome>();
  let otherwise: Outcome | undefined;
  for (const [word, outcome] of Object.entries(words)) {
    if (!isOutcome(outcome)) continue;
    if (word === '*') otherwise = outcome;
    else map.set(word, outcome);
  }
  return {
    from: status.from.map((source) => ({
      path: compilePath(source.path),
      word: source.word,
    })),
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
  return {
    kind: rule.kind,
    when: (rule.when ?? []).map(compilePredicate),
    each: rule.each === undefined ? undefined : compilePath(rule.each),
    eachWhen: (rule.each_when ?? []).map(compilePredicate),
    id: compileField(rule.id),
    tool: compileField(rule.tool),
    args: compileField(rule.args),
    status:
      rule.status === undefined ? undefined : compileStatus(rule.status, table),
    result: compileField(rule.result),
    exitCode:
      rule.exit_code === undefined ? undefined : compilePath(rule.exit_code),
    escalate: (rule.escalate ?? []).map((escalation) => ({
      when: escalation.when.map(compilePredicate),
      reason: escalation.reason,
    })),
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
  const table = parsed.data;
  const rules = table.rules.map((rule) => compileRule(rule, table));
  return {
    harness: table.harness,
    description: table.description ?? '',
    origin: options.source,
    detect: table.detect.map((alternative) =>
      alternative.map(compilePredicate),
    ),
    holdUntilFlush: table.hold_until_flush ?? false,
    flush: (table.flush ?? []).map((alternative) =>
      alternative.map(compilePredicate),
    ),
    rules,
    index: indexRules(rules),
  };
}
