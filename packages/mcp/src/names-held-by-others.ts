import { type ToolRegistry } from '@candor/registry';

/**
 * The registry's tool names that `ours` (the names one import registered) does not hold: a
 * local tool's, another import's. An import never registers over them, so a server cannot
 * take a trusted tool's name over, at connection or later through `list_changed`.
 */
export function namesHeldByOthers(
  registry: ToolRegistry,
  ours: ReadonlyMap<string, unknown>,
): Set<string> {
  return new Set(
    registry
      .list()
      .map((listed) => listed.name)
      .filter((name) => !ours.has(name)),
  );
}
