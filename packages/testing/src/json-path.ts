/** One step of a compiled path: an object key or an array index. */
type Segment = { readonly key: string } | { readonly index: number };

/** The result of reading a path: whether it exists, and its value when it does. */
export type JsonPathRead =
  { readonly found: true; readonly value: unknown } | { readonly found: false };

/** A parsed JSON path that can be read against any value. */
export interface JsonPath {
  /** The source text the path was compiled from. */
  readonly source: string;
  /** Reads the path; `found: false` when any segment is absent. */
  read(value: unknown): JsonPathRead;
}

const identifier = /^[A-Za-z_$][\w$-]*/;
const bracketed = /^\[(?:(\d+)|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/;

/**
 * Compiles the small JSONPath subset the script model needs: `$`, `.key`, `['key']`,
 * `["key"]` and `[0]`. Wildcards, filters and slices are left out on purpose: a matcher must
 * name exactly one value, so anything that selects many values is a script mistake.
 *
 * @throws Error naming the offending position when the path is not in the subset.
 * @example
 * compileJsonPath('$.error.retryable').read({ error: { retryable: true } });
 * // { found: true, value: true }
 */
export function compileJsonPath(source: string): JsonPath {
  if (!source.startsWith('$')) {
    throw new Error(`JSON path "${source}" must start with "$"`);
  }
  const segments: Segment[] = [];
  let rest = source.slice(1);
  while (rest.length > 0) {
    const position = source.length - rest.length;
    if (rest.startsWith('.')) {
      const name = identifier.exec(rest.slice(1));
      if (name === null) {
        throw new Error(
          `JSON path "${source}" has no key name after "." at position ${position}`,
        );
      }
      segments.push({ key: name[0] });
      rest = rest.slice(1 + name[0].length);
      continue;
    }
    const bracket = bracketed.exec(rest);
    if (bracket === null) {
      throw new Error(
        `JSON path "${source}" is not supported at position ${position}: use .key, ['key'] or [index]`,
      );
    }
    const [whole, index, single, double] = bracket;
    if (index !== undefined) {
      segments.push({ index: Number(index) });
    } else {
      const quoted = single ?? double ?? '';
      segments.push({ key: quoted.replace(/\\(.)/g, '$1') });
    }
    rest = rest.slice(whole.length);
  }
  return {
    source,
    read(value: unknown): JsonPathRead {
      let current: unknown = value;
      for (const segment of segments) {
        if ('index' in segment) {
          if (!Array.isArray(current) || segment.index >= current.length) {
            return { found: false };
          }
          current = (current as unknown[])[segment.index];
        } else {
          if (
            typeof current !== 'object' ||
            current === null ||
            Array.isArray(current) ||
            !Object.hasOwn(current, segment.key)
          ) {
            return { found: false };
          }
          current = (current as Record<string, unknown>)[segment.key];
        }
      }
      return { found: true, value: current };
    },
  };
}
