import { type ToolRegistry } from '@candor/registry';
import { type McpImport } from './import-mcp-options.ts';

/**
 * After each reconnection, closes the breakers of the import's tools: the calls that failed as
 * the server went away (those in flight at a crash) counted against a process or session that is
 * gone, so a breaker they opened must not refuse the new one for its whole reset timeout. Listens
 * from after the first connection on, so only reconnections reset; a breaker opened while the
 * server stays connected (it answers errors) is left to its own timer. Returns the unsubscribe.
 */
export function healBreakers(
  link: McpImport,
  registry: ToolRegistry,
): () => void {
  return link.on('connected', ({ tools }) => {
    for (const name of tools) registry.resetBreaker(name);
  });
}
