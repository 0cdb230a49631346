import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cappedFetch } from './capped-fetch.ts';
import { type McpServerSource } from './import-mcp-options.ts';

/** A response or event larger than this stops being read: 16 MiB. */
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** What a {@link McpServerSource} is, read once. */
export type ReadSource =
  | { readonly kind: 'rebuildable'; readonly make: () => Transport }
  | { readonly kind: 'transport'; readonly transport: Transport }
  | { readonly kind: 'client'; readonly client: Client };

/**
 * Reads where the server is: the two option shapes can be built again after a loss (a new
 * child process, a new HTTP session); a given `Transport` or `Client` only once.
 */
export function readSource(source: McpServerSource): ReadSource {
  if (source instanceof Client) return { kind: 'client', client: source };
  const given: unknown = source;
  if (typeof given !== 'object' || given === null) {
    throw new TypeError(
      `importMcpTools: the source must be { stdio }, { http }, an SDK Client or Transport, got ${given === null ? 'null' : typeof given}`,
    );
  }
  if ('stdio' in source) {
    const { command, args, env, cwd } = source.stdio;
    return {
      kind: 'rebuildable',
      make: () =>
        new StdioClientTransport({
          command,
          args: [...(args ?? [])],
          ...(env === undefined ? {} : { env: { ...env } }),
          ...(cwd === undefined ? {} : { cwd }),
          stderr: 'ignore',
        }),
    };
  }
  if ('http' in source) {
    const { url, headers, maxResponseBytes } = source.http;
    if (
      maxResponseBytes !== undefined &&
      (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 1)
    ) {
      throw new RangeError(
        `importMcpTools: http.maxResponseBytes must be a positive integer, got ${JSON.stringify(maxResponseBytes)}`,
      );
    }
    const fetch = cappedFetch(maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    return {
      kind: 'rebuildable',
      make: () =>
        new StreamableHTTPClientTransport(new URL(url), {
          fetch,
          ...(headers === undefined
            ? {}
            : { requestInit: { headers: { ...headers } } }),
        }),
    };
  }
  if (typeof source.start === 'function' && typeof source.send === 'function') {
    return { kind: 'transport', transport: source };
  }
  throw new TypeError(
    'importMcpTools: the source must be { stdio }, { http }, an SDK Client or Transport',
  );
}
