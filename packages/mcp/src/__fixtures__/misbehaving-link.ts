// What the tests that import the misbehaving SDK server share: how to spawn it, and how to read
// what the link and the registry say afterwards.
import { fileURLToPath } from 'node:url';
import { type ToolRegistry } from '@candor/registry';
import { type ToolResponse } from '@candor/tools';
import { type McpImport, type McpImportEvents } from '../import-mcp-options.ts';

/** The misbehaving server (written with the official SDK) as a stdio child, run from source. */
export const misbehavingStdio: { command: string; args: string[] } = {
  command: process.execPath,
  args: [
    '--import',
    'tsx',
    '--conditions=@candor/source',
    fileURLToPath(new URL('./misbehaving-server.ts', import.meta.url)),
  ],
};

/** An error response's code, or the status of any other response. */
export function codeOf(response: ToolResponse): string {
  return response.status === 'error'
    ? response.errorInfo.code
    : response.status;
}

/** The next time `link` emits `event`, with its payload. */
export function next<K extends keyof McpImportEvents>(
  link: McpImport,
  event: K,
): Promise<McpImportEvents[K]> {
  return new Promise((resolve) => {
    const off = link.on(event, (payload) => {
      off();
      resolve(payload);
    });
  });
}

/** The breaker state the registry reports for one tool. */
export function stateOf(
  registry: ToolRegistry,
  name: string,
): string | undefined {
  return registry.health().find((snapshot) => snapshot.name === name)?.state;
}
