// Child process of the MCP row: one zod tool in a ToolRegistry, served with serveRegistry.
import { serveRegistry } from '@candor/mcp';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

const registry = new ToolRegistry().register(
  defineTool({
    name: 'add',
    description: 'Adds a and b',
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => ToolResponse.success(String(a + b), { data: a + b }),
  }),
);
await serveRegistry(registry, { transport: 'stdio' });
