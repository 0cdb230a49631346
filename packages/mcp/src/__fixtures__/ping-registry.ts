// The smallest served registry: one tool, `ping`, that answers `pong`.
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

export function pingRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'ping',
      description: 'Answers pong',
      input: z.object({}),
      run: () => ToolResponse.success('pong'),
    }),
  );
  return registry;
}
