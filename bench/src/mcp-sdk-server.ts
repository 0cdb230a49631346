// Child process of the MCP row: the same tool with the SDK's own McpServer.registerTool.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'sdk', version: '1.0.0' });
server.registerTool(
  'add',
  {
    description: 'Adds a and b',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
  },
  ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
);
await server.connect(new StdioServerTransport());
