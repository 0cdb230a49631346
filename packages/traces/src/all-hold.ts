import { readPath } from './json-path.ts';
import type { Field, Predicate } from './parse-trace-table.ts';

function holds(predicate: Predicate, item: unknown, root: unknown): boolean {
  const value = readPath(predicate.path, item, root);
  switch (predicate.op) {
    case 'equals':
      return value === predicate.value;
    case 'in':
      return predicate.values.has(value);
    case 'exists':
      return (value !== undefined && value !== null) === predicate.expected;
    case 'matches':
      return (
        typeof value === 'string' && predicate.pattern?.test(value) === true
      );
  }
}

/** True when every predicate holds for `item` (an empty list always holds). */
export function allHold(
  predicates: readonly Predicate[],
  item: unknown,
  root: unknown,
): boolean {
  for (const predicate of predicates) {
    if (!holds(predicate, item, root)) return false;
  }
  return true;
}

/** The first non-null value among the field's paths, or its literal. */
export function readField(field: Field, item: unknown, root: unknown): unknown {
  if (field.value !== undefined) return field.value;
  for (const path of field.paths) {
    const value = readPath(path, item, root);
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}
