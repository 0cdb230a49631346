import { readToolAnnotations, type ToolAnnotations } from '@candor/tools';
import { type Entry } from './call-types.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { type ToolListing } from './registry-types.ts';

/** Every registered tool, and whether it is structured or a legacy auto-wrapped function. */
export function listTools(seam: RegistrySeam): ToolListing[] {
  return [...seam.tools.values()].map((entry) => {
    const { tool, kind } = entry;
    const annotations = entryAnnotations(entry);
    return {
      name: tool.name,
      description: tool.description,
      kind,
      idempotent: tool.idempotent === true,
      timeoutMs: tool.timeoutMs ?? seam.timeoutMs,
      ...(annotations === undefined ? {} : { annotations }),
    };
  });
}

/**
 * A tool's annotations, read once per registered tool and trusted after: `defineTool` already
 * checked and froze them, but a tool from another copy of `@candor/tools` may not have, so they
 * are read (and checked) again here rather than passed on as given.
 */
function entryAnnotations(entry: Entry): Readonly<ToolAnnotations> | undefined {
  entry.annotations ??=
    readToolAnnotations(
      entry.tool.name,
      entry.tool.annotations,
      entry.tool.idempotent === true,
    ) ?? null;
  return entry.annotations ?? undefined;
}
