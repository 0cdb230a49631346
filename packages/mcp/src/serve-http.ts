import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Logger } from '@candor/tools';
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  type McpRequestContext,
  type Server,
} from '@modelcontextprotocol/server';
import { httpRequestGuard } from './http-request-guard.ts';
import {
  invalidBody,
  oversizedBody,
  readJson,
  rpcError,
} from './json-rpc-http.ts';
import { type HttpServeOptions } from './serve-options.ts';
import { SessionPool } from './session-pool.ts';

const DEFAULT_MAX_SESSIONS = 64;
const DEFAULT_SESSION_IDLE_MS = 15 * 60_000;
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A running HTTP endpoint of `serveRegistry`. */
export interface HttpEndpoint {
  readonly url: URL;
  /** Sends `notifications/tools/list_changed` to 2026-era listeners. */
  toolsChanged(): void;
  close(): Promise<void>;
}

/**
 * Serves `factory`'s servers over Streamable HTTP on `/mcp`, each request through the
 * {@link httpRequestGuard} first. 2026-era requests are self-contained and go to the SDK's
 * per-request handler; 2025-era clients (most clients today) get a session each, in a bounded
 * {@link SessionPool}, so that their `notifications/cancelled` and `list_changed` reach the
 * server instance that runs their calls.
 */
export async function serveHttp(
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  factory: (context: McpRequestContext) => Server,
  options: HttpServeOptions,
  logger: Logger,
): Promise<HttpEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = positive(
    'maxBodyBytes',
    options.maxBodyBytes,
    DEFAULT_MAX_BODY_BYTES,
  );
  const guard = httpRequestGuard({
    host,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    bearerToken: options.bearerToken,
    // Read per request, once listening: the port is known only then (port 0 picks one).
    port: () => (http.address() as AddressInfo).port,
  });
  const sessions = new SessionPool<NodeStreamableHTTPServerTransport>({
    maxSessions: positive(
      'maxSessions',
      options.maxSessions,
      DEFAULT_MAX_SESSIONS,
    ),
    idleMs: positive(
      'sessionIdleMs',
      options.sessionIdleMs,
      DEFAULT_SESSION_IDLE_MS,
    ),
    onEvict: (id, why) => {
      logger.debug({ sessionId: id, why }, 'MCP session closed by the server');
    },
  });
  const onerror = (error: Error): void => {
    logger.warn({ error: error.message }, 'MCP transport error');
  };
  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    onerror,
    maxRequestBodySize: maxBodyBytes,
  });
  const modern = toNodeHandler(handler, {
    onerror,
    maxRequestBodySize: maxBodyBytes,
  });
  const route = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    if (!guard(request, response)) return;
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    const body =
      request.method === 'POST'
        ? await readJson(request, maxBodyBytes)
        : undefined;
    if (body === oversizedBody) {
      // The rest is read and dropped, up to the limit again, so that the client, still sending,
      // can read this answer before the connection closes (closing at once resets it).
      let dropped = 0;
      request.on('data', (chunk: Buffer) => {
        dropped += chunk.length;
        if (dropped > maxBodyBytes) request.socket.destroy();
      });
      request.resume();
      rpcError(response, 413, {
        code: -32000,
        message: `Request body larger than ${maxBodyBytes} bytes`,
      });
      return;
    }
    if (body === invalidBody) {
      rpcError(response, 400, {
        code: -32700,
        message: 'Parse error: the body is not JSON',
      });
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const used = sessions.use(sessionId);
      if (used === undefined) {
        rpcError(response, 404, { code: -32001, message: 'Session not found' });
        return;
      }
      response.once('close', used.done);
      await used.session.handleRequest(request, response, body);
      return;
    }
    if (!isInitializeRequest(body)) {
      // node:http's types are wider than the SDK's structural "Like" types under
      // exactOptionalPropertyTypes; they are the objects the SDK is written for.
      await modern(request as never, response, body);
      return;
    }
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.add(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const server = factory({ era: 'legacy' });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };
  const http = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      logger.error({ error: describe(error) }, 'MCP request failed');
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(
      `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    ),
    toolsChanged: () => {
      handler.notify.toolsChanged();
    },
    close: async () => {
      await sessions.close();
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => {
        http.close(() => {
          resolve();
        });
      });
    },
  };
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new RangeError(
      `serveRegistry: ${name} must be a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
