import { type ToolListing, type ToolRegistry } from '@candor/registry';
import { type ToolAnnotations } from '@modelcontextprotocol/server';

/**
 * Each tool's annotations as served: `idempotentHint` from its `idempotent`, then what the tool
 * declares, then the `toolAnnotations` option's entry for its name. One resolution, read both by
 * `tools/list` and by the token-less HTTP rule, so a client is never shown one thing while the
 * server decides by another.
 */
export function resolveAnnotations(
  listings: readonly ToolListing[],
  overrides: Readonly<Record<string, ToolAnnotations>> = {},
): Map<string, ToolAnnotations> {
  const resolved = new Map<string, ToolAnnotations>();
  for (const listing of listings) {
    resolved.set(listing.name, {
      idempotentHint: listing.idempotent,
      ...listing.annotations,
      ...(Object.hasOwn(overrides, listing.name)
        ? overrides[listing.name]
        : {}),
    });
  }
  return resolved;
}

/** {@link resolveAnnotations} of a registry, kept until the registry's tools change. */
export class AnnotationsCache {
  readonly #registry: ToolRegistry;
  readonly #overrides: Readonly<Record<string, ToolAnnotations>> | undefined;
  #resolved: Map<string, ToolAnnotations> | undefined;

  constructor(
    registry: ToolRegistry,
    overrides: Readonly<Record<string, ToolAnnotations>> | undefined,
  ) {
    this.#registry = registry;
    this.#overrides = overrides;
  }

  /** The tool's annotations as served, or undefined for a tool not registered. */
  get(name: string): ToolAnnotations | undefined {
    this.#resolved ??= resolveAnnotations(
      this.#registry.list(),
      this.#overrides,
    );
    return this.#resolved.get(name);
  }

  /** Forgets the resolution: a tool was registered or replaced. */
  clear(): void {
    this.#resolved = undefined;
  }
}
