/**
 * A compiled check on a line (or an `each` item of it): built once per table from its
 * predicates, so matching a line calls closures instead of interpreting the table.
 */
export type Condition = (item: unknown, root: unknown) => boolean;

const always: Condition = () => true;
const never: Condition = () => false;

/** True only when every one of `conditions` holds; an empty list always holds. */
export function allOf(conditions: readonly Condition[]): Condition {
  const [first = always, second = always] = conditions;
  switch (conditions.length) {
    case 0:
      return always;
    case 1:
      return first;
    case 2:
      return (item, root) => first(item, root) && second(item, root);
    default:
      return (item, root) => {
        for (const condition of conditions) {
          if (!condition(item, root)) return false;
        }
        return true;
      };
  }
}

/** True when any one of `conditions` holds; an empty list never holds. */
export function anyOf(conditions: readonly Condition[]): Condition {
  const [first = never] = conditions;
  switch (conditions.length) {
    case 0:
      return never;
    case 1:
      return first;
    default:
      return (item, root) => {
        for (const condition of conditions) {
          if (condition(item, root)) return true;
        }
        return false;
      };
  }
}
