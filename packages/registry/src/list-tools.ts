import { type RegistrySeam } from './registry-seam.ts';
import { type ToolListing } from './registry-types.ts';

/** Every registered tool, and whether it is structured or a legacy auto-wrapped function. */
export function listTools(seam: RegistrySeam): ToolListing[] {
  return [...seam.tools.values()].map(({ tool, kind }) => ({
    name: tool.name,
    description: tool.description,
    kind,
    idempotent: tool.idempotent === true,
    timeoutMs: tool.timeoutMs ?? seam.timeoutMs,
  }));
}
