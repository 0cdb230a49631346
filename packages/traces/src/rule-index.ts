import type { JsonPath } from './json-path.ts';
import type { TraceRule } from './parse-trace-table.ts';

interface KeyGroup {
  readonly path: JsonPath;
  /** Per value: the rules keyed on it plus the unkeyed ones, in table order. */
  readonly byValue: ReadonlyMap<unknown, readonly TraceRule[]>;
}

/**
 * Rules grouped by the value their first `equals`/`in` predicate on the line root expects
 * (usually `type`), so a line reads that value once and tries only the rules that can match.
 * Purely a speed-up: every candidate still checks its full `when`.
 */
export interface RuleIndex {
  readonly groups: readonly KeyGroup[];
  /** Rules with no usable key; tried on every line. */
  readonly always: readonly TraceRule[];
  /** Each rule's place in the table, to keep table order when two groups match one line. */
  readonly position: ReadonlyMap<TraceRule, number>;
}

function keyOf(
  rule: TraceRule,
): { path: JsonPath; values: readonly unknown[] } | undefined {
  for (const predicate of rule.when) {
    if (predicate.path.fromRoot) continue;
    if (predicate.op === 'equals')
      return { path: predicate.path, values: [predicate.value] };
    if (predicate.op === 'in')
      return { path: predicate.path, values: [...predicate.values] };
  }
  return undefined;
}

/** Builds the index of a table's rules. */
export function indexRules(rules: readonly TraceRule[]): RuleIndex {
  const position = new Map(rules.map((rule, place) => [rule, place]));
  const always: TraceRule[] = [];
  const keyed = new Map<
    string,
    { path: JsonPath; byValue: Map<unknown, TraceRule[]> }
  >();
  for (const rule of rules) {
    const key = keyOf(rule);
    if (key === undefined) {
      always.push(rule);
      continue;
    }
    let group = keyed.get(key.path.text);
    if (group === undefined) {
      group = { path: key.path, byValue: new Map() };
      keyed.set(key.path.text, group);
    }
    for (const value of key.values) {
      const list = group.byValue.get(value) ?? [];
      list.push(rule);
      group.byValue.set(value, list);
    }
  }
  const byPosition = (a: TraceRule, b: TraceRule) =>
    (position.get(a) ?? 0) - (position.get(b) ?? 0);
  return {
    always,
    position,
    groups: [...keyed.values()].map((group) => ({
      path: group.path,
      byValue: new Map(
        [...group.byValue].map(([value, list]) => [
          value,
          [...list, ...always].sort(byPosition),
        ]),
      ),
    })),
  };
}

/** The rules that may match `root`, in table order. */
export function candidateRules(
  index: RuleIndex,
  root: object,
): readonly TraceRule[] {
  let found: readonly TraceRule[] | undefined;
  let merged: Set<TraceRule> | undefined;
  for (const group of index.groups) {
    const list = group.byValue.get(group.path.read(root, root));
    if (list === undefined) continue;
    if (found === undefined) {
      found = list;
    } else {
      // Rare: a line keyed by two paths. Keep table order across both lists.
      merged ??= new Set(found);
      for (const rule of list) merged.add(rule);
    }
  }
  if (merged !== undefined) {
    const { position } = index;
    return [...merged].sort(
      (a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
  return found ?? index.always;
}
