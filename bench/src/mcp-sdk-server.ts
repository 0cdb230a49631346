// Child process of the MCP row: the same tool with the SDK's own McpServer.registerTool, served
// over stdio the way the SDK's v2 serving guide shows (and as serveRegistry serves): `serveStdio`
// with a server factory, the entry point that speaks the 2026-07-28 protocol as well as 2025's.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'sdk', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds a and b',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
});
