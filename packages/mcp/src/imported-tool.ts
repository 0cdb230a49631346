import {
  defineTool,
  type JsonSchema,
  ToolResponse,
  type ToolRunContext,
} from '@candor/tools';
import { type Tool } from '@modelcontextprotocol/client';
import { remoteInputSchema } from './remote-input-schema.ts';

/**
 * A remote MCP tool as a Candor tool: its JSON Schema validated locally, `idempotentHint`
 * taken as `idempotent`, and `run` handing the call to the import's connection.
 */
export function importedTool(imported: {
  readonly name: string;
  readonly tool: Tool;
  readonly timeoutMs: number | undefined;
  readonly run: (
    args: unknown,
    context: ToolRunContext,
  ) => Promise<ToolResponse>;
}) {
  const { name, tool, timeoutMs, run } = imported;
  return defineTool({
    name,
    description: tool.description ?? tool.title ?? `MCP tool ${tool.name}.`,
    input: remoteInputSchema(tool.inputSchema as JsonSchema),
    ...(tool.annotations?.idempotentHint === true ? { idempotent: true } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    run,
  });
}

/** What a tool the server no longer offers becomes: registered still, answering NOT_FOUND. */
export function goneTool(name: string, remote: string) {
  return defineTool({
    name,
    description: `No longer offered by its MCP server.`,
    input: remoteInputSchema({ type: 'object' }),
    run: () =>
      ToolResponse.error(
        'NOT_FOUND',
        `The MCP server no longer offers "${remote}".`,
      ),
  });
}
