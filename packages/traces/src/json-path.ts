/** Reads a value from the current item, or from the line root for `$.` paths. */
export type PathReader = (item: unknown, root: unknown) => unknown;

/**
 * A compiled dot path such as `item.status`, or `$.timestamp` to read the line root from inside
 * an `each` item. Compiled once per table so the per-line cost is a few property reads.
 */
export interface JsonPath {
  /** The path as written in the table, kept for messages. */
  readonly text: string;
  /** True when the path starts at the line root (`$.`) rather than the current item. */
  readonly fromRoot: boolean;
  readonly segments: readonly string[];
  /**
   * Reads the path from `item` (or from `root` for `$.` paths). Missing steps give `undefined`;
   * arrays are indexed by numeric segments; a `*` segment steps into an object's first (only)
   * field whatever its name. Unrolled for the path's length.
   */
  readonly read: PathReader;
}

/**
 * The path segment that stands for "the one field, whatever its name": harnesses that encode a
 * tagged union as an object with a single key (protobuf's `oneof` in JSON, as Cursor's
 * `tool_call.shellToolCall` and `result.success`) name the case by the key itself.
 */
export const anyKeySegment = '*';

/** The first own key of an object (a one-key wrapper's case name), or undefined. */
export function firstKeyOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key)) return key;
  }
  return undefined;
}

function step(current: object, segment: string): unknown {
  if (segment !== anyKeySegment) {
    return (current as Record<string, unknown>)[segment];
  }
  const key = firstKeyOf(current);
  return key === undefined
    ? undefined
    : (current as Record<string, unknown>)[key];
}

// Every step reads only from objects (arrays included): a string or number has no fields here.
function walker(segments: readonly string[]): (start: unknown) => unknown {
  if (segments.includes(anyKeySegment)) {
    return (start) => {
      let current = start;
      for (const segment of segments) {
        if (typeof current !== 'object' || current === null) return undefined;
        current = step(current, segment);
      }
      return current;
    };
  }
  const [first = '', second = ''] = segments;
  switch (segments.length) {
    case 1:
      return (start) =>
        typeof start === 'object' && start !== null
          ? (start as Record<string, unknown>)[first]
          : undefined;
    case 2:
      return (start) => {
        if (typeof start !== 'object' || start === null) return undefined;
        const next = (start as Record<string, unknown>)[first];
        return typeof next === 'object' && next !== null
          ? (next as Record<string, unknown>)[second]
          : undefined;
      };
    default:
      return (start) => {
        let current = start;
        for (const segment of segments) {
          if (typeof current !== 'object' || current === null) return undefined;
          current = (current as Record<string, unknown>)[segment];
        }
        return current;
      };
  }
}

/** Compiles a dot path. The table schema has already checked its shape. */
export function compilePath(text: string): JsonPath {
  const fromRoot = text.startsWith('$.');
  const body = fromRoot ? text.slice(2) : text;
  const segments = body.split('.');
  const walk = walker(segments);
  const read: PathReader = fromRoot ? (_item, root) => walk(root) : walk;
  return { text, fromRoot, segments, read };
}
