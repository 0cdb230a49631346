import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { type ToolEndEvent } from '../registry-events.ts';
import { ToolRegistry } from '../tool-registry.ts';
import { type ToolRegistryOptions } from '../registry-types.ts';

/** A tool that repeats its message: the stage tests' usual tool. */
export const echo = defineTool({
  name: 'echo',
  description: 'Echoes a message',
  input: z.object({
    message: z.string(),
    times: z.number().int().min(1).default(1),
  }),
  run: ({ message, times }) =>
    ToolResponse.success(message.repeat(times), { data: { times } }),
});

/** A registry without breakers, and every `tool:end` event it emits. */
export function setup(options: ToolRegistryOptions = {}) {
  const registry = new ToolRegistry({ breaker: false, ...options });
  const ends: ToolEndEvent[] = [];
  registry.on('tool:end', (event) => ends.push(event));
  return { registry, ends };
}
