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
   * arrays are indexed by numeric segments. Unrolled for the path's length.
   */
  readonly read: PathReader;
}

// Every step reads only from objects (arrays included): a string or number has no fields here.
function walker(segments: readonly string[]): (start: unknown) => unknown {
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
