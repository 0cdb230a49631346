import { type ToolRegistry } from '@candor/registry';
import {
  type ImportMcpToolsOptions,
  type McpImport,
  type McpServerSource,
} from './import-mcp-options.ts';
import { healBreakers } from './heal-breakers.ts';
import { McpLink } from './mcp-link.ts';

/**
 * Puts every tool of an MCP server into a registry, behind Candor's seam: each gets its own
 * breaker, timeout and telemetry, its arguments are validated locally against the server's JSON
 * Schema (a malformed call is INVALID_PARAM and never reaches the server), and every outcome is
 * a `ToolResponse` (see `responseFromMcp`). A lost server makes its tools fail fast with
 * CIRCUIT_OPEN until it is reconnected (a stdio child respawned, an HTTP session opened again, with
 * backoff), which the breakers do not count; a reconnection closes the breakers that the calls
 * in flight at the loss opened, so the next call after it is a normal call. A single failed
 * request is that call's NETWORK_ERROR, and a ping decides whether the session is gone. The server's `list_changed` refreshes the tools. `source` can also be an SDK
 * `Client` (connected) or `Transport` (not started), for OAuth, a custom `fetch` or the legacy
 * SSE transport; those are not reconnected, and `close()` closes them.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * const github = await importMcpTools(
 *   { stdio: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } },
 *   registry,
 *   { prefix: 'everything_' },
 * );
 * const response = await registry.call('everything_echo', { message: 'hi' });
 * await github.close();
 * ```
 */
export async function importMcpTools(
  source: McpServerSource,
  registry: ToolRegistry,
  options: ImportMcpToolsOptions = {},
): Promise<McpImport> {
  const link = new McpLink(source, registry, options);
  await link.start();
  // Before any listener of the caller's: by the time they hear `connected`, the breakers are closed.
  healBreakers(link, registry);
  return link;
}
