import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { onTestFinished } from 'vitest';
import { z } from 'zod';

/**
 * A registry holding one `calc` tool that adds two numbers, shut down when the test that made it
 * ends: the tool loop every wire test drives.
 */
export function calculatorRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => ToolResponse.success(String(a + b)),
    }),
  );
  onTestFinished(() => {
    registry.shutdown();
  });
  return registry;
}
