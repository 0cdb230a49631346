import { readToolAnnotations, type ToolAnnotations } from '@candor/tools';
import { type BuiltinToolName } from './register-builtins.ts';

/**
 * What a client may assume about a tool before calling it: the MCP tool annotations' shape
 * (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`), every field
 * set. Hints, not guarantees: a client must not trust them from a server it does not trust.
 */
export interface ToolAnnotationHints {
  readonly title: string;
  /** The tool changes nothing anywhere. */
  readonly readOnlyHint: boolean;
  /** When not read-only: a call may destroy or overwrite what was there. */
  readonly destructiveHint: boolean;
  /** A second call with the same arguments has no further effect (the tool's `idempotent`). */
  readonly idempotentHint: boolean;
  /** The tool reaches beyond the workspace (the network, other programs). */
  readonly openWorldHint: boolean;
}

interface BuiltinTraits {
  readonly idempotent: boolean;
  readonly annotations: ToolAnnotations;
}

function traits(
  title: string,
  flags: { readOnly?: true; destructive?: true; openWorld?: true },
  idempotent: boolean,
): BuiltinTraits {
  return Object.freeze({
    idempotent,
    annotations: Object.freeze({
      title,
      readOnlyHint: flags.readOnly === true,
      destructiveHint: flags.destructive === true,
      openWorldHint: flags.openWorld === true,
    }),
  });
}

// The one table each builtin's definition spreads in (`...builtinTraits(name)`), so that a
// tool's `idempotent` (which decides retries and PARTIAL-vs-ERROR) and its `idempotentHint`
// cannot disagree. `http_fetch` can POST and `shell` can do anything the user can, so both are
// neither read-only nor closed-world; `write_file` replaces a file whole (destructive), and is
// not `idempotent`, so the registry never treats a write as safe to redo.
const TRAITS: Readonly<Record<BuiltinToolName, BuiltinTraits>> = Object.freeze({
  read_file: traits('Read a file', { readOnly: true }, true),
  write_file: traits('Write a file', { destructive: true }, false),
  list_dir: traits('List a folder', { readOnly: true }, true),
  search: traits('Search files', { readOnly: true }, true),
  shell: traits(
    'Run a shell command',
    { destructive: true, openWorld: true },
    false,
  ),
  http_fetch: traits(
    'Fetch a URL',
    { destructive: true, openWorld: true },
    false,
  ),
  calculator: traits('Calculate', { readOnly: true }, true),
});

/** A builtin's `idempotent` and `annotations`, for its `defineTool` call. */
export function builtinTraits(name: BuiltinToolName): BuiltinTraits {
  return TRAITS[name];
}

/**
 * The annotations of each built-in tool, as each declares them (the same values as
 * `tool.annotations` of the tools `createBuiltins` makes). `serveRegistry` sends a tool's own
 * annotations already; this stays for code that passes it as `toolAnnotations`.
 *
 * @example
 * ```ts
 * await serveRegistry(registry, { transport: 'stdio', toolAnnotations: BUILTIN_ANNOTATIONS });
 * ```
 */
export const BUILTIN_ANNOTATIONS: Readonly<
  Record<BuiltinToolName, ToolAnnotationHints>
> = Object.freeze(
  Object.fromEntries(
    Object.entries(TRAITS).map(([name, { idempotent, annotations }]) => [
      name,
      readToolAnnotations(name, annotations, idempotent),
    ]),
  ) as Record<BuiltinToolName, ToolAnnotationHints>,
);
