import { type ToolRegistry } from '@candor/registry';
import { TOOL_NAME_PATTERN } from '@candor/tools';

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

/** Why a remote tool's registry `name` is not registered, or undefined when it may be. */
export function whySkipped(
  name: string,
  taken: ReadonlySet<string>,
): string | undefined {
  if (!TOOL_NAME_PATTERN.test(name)) {
    return 'MCP tool skipped: its name cannot be a Candor tool name';
  }
  return taken.has(name)
    ? 'MCP tool skipped: the registry already has a tool of that name'
    : undefined;
}
