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
}

/** Compiles a dot path. The table schema has already checked its shape. */
export function compilePath(text: string): JsonPath {
  const fromRoot = text.startsWith('$.');
  const body = fromRoot ? text.slice(2) : text;
  return { text, fromRoot, segments: body.split('.') };
}

/**
 * Reads `path` from `item` (or from `root` for `$.` paths). Missing steps give `undefined`;
 * arrays are indexed by numeric segments.
 */
export function readPath(
  path: JsonPath,
  item: unknown,
  root: unknown,
): unknown {
  let current: unknown = path.fromRoot ? root : item;
  for (const segment of path.segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
