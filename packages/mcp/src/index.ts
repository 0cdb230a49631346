/**
 * Serve a Candor tool registry over the Model Context Protocol, and put any MCP server's
 * tools behind Candor's seam.
 *
 * @packageDocumentation
 * @module \@candor/mcp
 */
export { serveRegistry } from './serve-registry.ts';
export { createRegistryServer } from './create-registry-server.ts';
export type {
  HttpServeOptions,
  RegistryService,
  ServeOptions,
  StdioServeOptions,
} from './serve-options.ts';
export type { ElicitApprovalOptions } from './elicit-approval.ts';
export { importMcpTools } from './import-mcp-tools.ts';
export type {
  HttpServerSource,
  ImportMcpToolsOptions,
  McpImport,
  McpImportEvents,
  McpServerSource,
  ReconnectOptions,
  StdioServerSource,
} from './import-mcp-options.ts';
export {
  outcomeEnvelope,
  outcomeEnvelopeSchema,
  readOutcomeEnvelope,
} from './outcome-envelope.ts';
export type { OutcomeEnvelope } from './outcome-envelope.ts';
export { responseFromMcp, responseFromThrown } from './response-from-mcp.ts';
