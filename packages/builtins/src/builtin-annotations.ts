import { type BuiltinToolName } from './register-builtins.ts';

/**
 * What a client may assume about a tool before calling it: the MCP tool annotations' shape
 * (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`), so that
 * `serveRegistry` from `@candor/mcp` can send them and a client can, say, auto-approve
 * read-only tools. Hints, not guarantees: a client must not trust them from a server it does
 * not trust.
 */
export interface ToolAnnotationHints {
  readonly title: string;
  /** The tool changes nothing anywhere. */
  readonly readOnlyHint: boolean;
  /** When not read-only: a call may destroy or overwrite what was there. */
  readonly destructiveHint: boolean;
  /** A second call with the same arguments has no further effect. */
  readonly idempotentHint: boolean;
  /** The tool reaches beyond the workspace (the network, other programs). */
  readonly openWorldHint: boolean;
}

/**
 * The annotations of each built-in tool. `http_fetch` can POST and `shell` can do anything the
 * user can, so both are neither read-only nor closed-world; `write_file` replaces a file whole
 * (destructive, and idempotent: the same content twice leaves the same file).
 *
 * @example
 * ```ts
 * await serveRegistry(registry, { transport: 'stdio', toolAnnotations: BUILTIN_ANNOTATIONS });
 * ```
 */
export const BUILTIN_ANNOTATIONS: Readonly<
  Record<BuiltinToolName, ToolAnnotationHints>
> = Object.freeze({
  read_file: hints('Read a file', { readOnly: true, idempotent: true }),
  write_file: hints('Write a file', { destructive: true, idempotent: true }),
  list_dir: hints('List a folder', { readOnly: true, idempotent: true }),
  search: hints('Search files', { readOnly: true, idempotent: true }),
  shell: hints('Run a shell command', { destructive: true, openWorld: true }),
  http_fetch: hints('Fetch a URL', { destructive: true, openWorld: true }),
  calculator: hints('Calculate', { readOnly: true, idempotent: true }),
});

function hints(
  title: string,
  flags: {
    readOnly?: boolean;
    destructive?: boolean;
    idempotent?: boolean;
    openWorld?: boolean;
  },
): ToolAnnotationHints {
  return Object.freeze({
    title,
    readOnlyHint: flags.readOnly === true,
    destructiveHint: flags.destructive === true,
    idempotentHint: flags.idempotent === true,
    openWorldHint: flags.openWorld === true,
  });
}
