import { toAnthropicTool, toolSpec, toOpenAITool } from '@candor/tools';
import { type RegistrySeam } from './registry-seam.ts';
import {
  type SpecFormat,
  type SpecsByFormat,
  type SpecsOptions,
} from './registry-types.ts';

const specFormats: ReadonlySet<string> = new Set<SpecFormat>([
  'openai',
  'anthropic',
  'json-schema',
]);

/**
 * Every tool as a provider-neutral `ToolSpec` (name, description, input and output JSON
 * Schema, idempotence), or in a deprecated provider format. A new array each time, of the same
 * frozen spec per tool until the tool is replaced.
 */
export function toolSpecs<TFormat extends SpecFormat = 'json-schema'>(
  seam: RegistrySeam,
  options: SpecsOptions<TFormat>,
): SpecsByFormat[TFormat][] {
  const entries = [...seam.tools.values()].filter(
    (entry) =>
      options.hideOpenCircuits !== true ||
      breakerState(seam, entry.tool.name) !== 'open',
  );
  const tools = entries.map(({ tool }) => tool);
  const format: SpecFormat = options.format ?? 'json-schema';
  if (!specFormats.has(format)) {
    throw new TypeError(
      `specs: format must be 'json-schema' (or the deprecated 'openai' or 'anthropic'), got ${JSON.stringify(format)}`,
    );
  }
  // Each branch builds exactly the type SpecsByFormat names for its format.
  switch (format) {
    case 'openai':
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
      return tools.map(toOpenAITool) as SpecsByFormat[TFormat][];
    case 'anthropic':
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
      return tools.map(toAnthropicTool) as SpecsByFormat[TFormat][];
    case 'json-schema':
      // Built once per tool: an agent asks for the list before every model request.
      return entries.map(
        (entry) => (entry.spec ??= Object.freeze(toolSpec(entry.tool))),
      ) as SpecsByFormat[TFormat][];
  }
}

/** The state of a tool's breaker, without making one for a tool never called. */
function breakerState(seam: RegistrySeam, name: string): string | undefined {
  if (seam.breakers?.has(name) !== true) return undefined;
  return seam.breakers.get(name).state;
}
