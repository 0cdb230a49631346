import { type ToolRegistry } from '@candor/registry';
import { guardLogger } from '@candor/tools';
import {
  type McpRequestContext,
  type Server,
} from '@modelcontextprotocol/server';
import {
  serveStdio,
  StdioServerTransport,
} from '@modelcontextprotocol/server/stdio';
import { BreakerWatch } from './breaker-watch.ts';
import { AnnotationsCache } from './resolved-annotations.ts';
import { registryServer } from './create-registry-server.ts';
import { checkElicitApproval } from './elicit-approval.ts';
import { serveHttp } from './serve-http.ts';
import {
  type HttpServeOptions,
  type RegistryService,
  type ServeOptions,
  type StdioServeOptions,
} from './serve-options.ts';

/**
 * Serves every tool of a registry over MCP. `tools/list` comes from `registry.specs()`, each tool
 * advertising the {@link OutcomeEnvelope} as its output schema; `tools/call` goes through
 * `registry.call()` (nothing bypasses the seam): the content is exactly what
 * `toolResultForModel` gives a model, `isError` is true on error only, and `structuredContent`
 * carries the outcome. A client's `notifications/cancelled` aborts the call's signal.
 *
 * Over HTTP, requests whose `Host` or `Origin` is not a loopback name get 403 (DNS rebinding),
 * bodies over 4 MiB get 413, sessions are bounded, and without a `bearerToken` only read-only
 * tools are served (see {@link HttpServeOptions}).
 *
 * @example
 * ```ts
 * const registry = registerBuiltins(new ToolRegistry(), { workspace: process.cwd() });
 * await serveRegistry(registry, { transport: 'stdio' });
 * ```
 */
export async function serveRegistry(
  registry: ToolRegistry,
  options: StdioServeOptions | HttpServeOptions,
): Promise<RegistryService> {
  checkElicitApproval(options.elicitApproval);
  if (options.transport === 'http' && options.bearerToken === '') {
    // "Bearer " with nothing after it would be the password: refuse rather than guard nothing.
    throw new TypeError('serveRegistry: bearerToken must not be empty.');
  }
  // A logger that throws loses its line, never an answer to a client. Guarded once: each
  // server made below is given the guarded logger, which guardLogger returns as is.
  const guarded = guardLogger(options.logger);
  const logger = guarded.child({ component: 'mcp-server' });
  const serverOptions: ServeOptions =
    options.logger === undefined ? options : { ...options, logger: guarded };
  const annotations = new AnnotationsCache(registry, options.toolAnnotations);
  const refusal = unauthenticatedRefusal(options, annotations);
  // The low-level Server, not McpServer: tools here are listed per request from the registry,
  // with its own JSON Schemas, and validated by the registry, not by the SDK a second time.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const servers = new Set<Server>();
  // The HTTP handler adds its own notifier: 2026-era clients listen there.
  const notifiers: (() => void)[] = [];
  const toolsChanged = (): void => {
    annotations.clear();
    for (const notify of notifiers) notify();
    for (const server of servers) {
      server.sendToolListChanged().catch((error: unknown) => {
        logger.debug({ error: describe(error) }, 'list_changed not sent');
      });
    }
  };
  const watch = new BreakerWatch(registry, {
    hideOpenCircuits: options.hideOpenCircuits === true,
    onChange: toolsChanged,
  });
  const unregistered = registry.on('tool:registered', toolsChanged);
  const stopWatching = (): void => {
    watch.stop();
    unregistered();
  };
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const factory = (context: McpRequestContext): Server => {
    // Over HTTP a cancelled call is also a closed request: its signal aborts the call.
    const server = registryServer(registry, serverOptions, {
      signal: context.requestInfo?.signal,
      refusal,
    });
    servers.add(server);
    server.onclose = () => {
      servers.delete(server);
    };
    return server;
  };

  if (options.transport === 'stdio') {
    const handle = serveStdio(factory, {
      onerror: (error: Error) => {
        logger.warn({ error: error.message }, 'MCP transport error');
      },
      ...(options.stdin === undefined && options.stdout === undefined
        ? {}
        : {
            transport: new StdioServerTransport(options.stdin, options.stdout),
          }),
    });
    return {
      url: undefined,
      toolsChanged,
      close: async () => {
        stopWatching();
        await handle.close();
      },
    };
  }

  let endpoint;
  try {
    endpoint = await serveHttp(factory, options, logger);
  } catch (error: unknown) {
    stopWatching();
    throw error;
  }
  notifiers.push(() => {
    endpoint.toolsChanged();
  });
  return {
    url: endpoint.url,
    toolsChanged,
    close: async () => {
      stopWatching();
      await endpoint.close();
    },
  };
}

/**
 * Over HTTP without a token anyone on the machine is a caller: only tools declared read-only
 * are served, unless the caller said otherwise in so many words.
 */
function unauthenticatedRefusal(
  options: StdioServeOptions | HttpServeOptions,
  annotations: AnnotationsCache,
): ((name: string) => string | undefined) | undefined {
  if (
    options.transport !== 'http' ||
    options.bearerToken !== undefined ||
    options.allowWritesWithoutToken === true
  ) {
    return undefined;
  }
  return (name) =>
    annotations.get(name)?.readOnlyHint === true
      ? undefined
      : `Tool "${name}" is not served over HTTP without a bearer token, because it is not declared read-only; the server's operator can set a token, or allow it with allowWritesWithoutToken.`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
