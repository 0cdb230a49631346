/**
 * What a client may assume about a tool before calling it, in the shape of MCP's tool
 * annotations (https://modelcontextprotocol.io/specification/2025-06-18/server/tools). Hints,
 * not guarantees: a client must not trust them from a server it does not trust.
 */
export interface ToolAnnotations {
  /** A human-readable name for the tool, for a client's UI. */
  readonly title?: string;
  /** The tool changes nothing anywhere. */
  readonly readOnlyHint?: boolean;
  /** When not read-only: a call may destroy or overwrite what was there. */
  readonly destructiveHint?: boolean;
  /**
   * A second call with the same arguments has no further effect. The tool's `idempotent` is the
   * one source of truth: this may be left out (it follows `idempotent`), and when given it must
   * agree with it.
   */
  readonly idempotentHint?: boolean;
  /** The tool reaches beyond its own closed domain (the network, other programs). */
  readonly openWorldHint?: boolean;
}

const booleanHints = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;

const knownKeys: ReadonlySet<string> = new Set(['title', ...booleanHints]);

/**
 * Reads a tool's declared annotations once into a frozen copy, with `idempotentHint` taken
 * from `idempotent`; a TypeError names a bad field. `undefined` when the tool declares none.
 */
export function readToolAnnotations(
  toolName: string,
  annotations: unknown,
  idempotent: boolean,
): Readonly<ToolAnnotations> | undefined {
  if (annotations === undefined) return undefined;
  if (
    typeof annotations !== 'object' ||
    annotations === null ||
    Array.isArray(annotations)
  ) {
    throw new TypeError(
      `tool "${toolName}": annotations must be an object when given`,
    );
  }
  const given = annotations as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!knownKeys.has(key)) {
      throw new TypeError(
        `tool "${toolName}": unknown annotation "${key}"; expected ${[...knownKeys].join(', ')}`,
      );
    }
  }
  const title = given['title'];
  if (title !== undefined && (typeof title !== 'string' || title === '')) {
    throw new TypeError(
      `tool "${toolName}": annotations.title must be a non-empty string when given`,
    );
  }
  const snapshot: Record<string, string | boolean> = {};
  if (title !== undefined) snapshot['title'] = title;
  for (const key of booleanHints) {
    const value = given[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') {
      throw new TypeError(
        `tool "${toolName}": annotations.${key} must be a boolean, got ${typeof value}`,
      );
    }
    snapshot[key] = value;
  }
  if (
    snapshot['idempotentHint'] !== undefined &&
    snapshot['idempotentHint'] !== idempotent
  ) {
    throw new TypeError(
      `tool "${toolName}": annotations.idempotentHint (${String(snapshot['idempotentHint'])}) disagrees with idempotent (${String(idempotent)}); declare idempotent on the tool, the hint follows it`,
    );
  }
  snapshot['idempotentHint'] = idempotent;
  return Object.freeze(snapshot);
}
