import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Readable, type Writable } from 'node:stream';
import { type ToolRegistry } from '@candor/registry';
import {
  guardLogger,
  type JsonSchema,
  type Logger,
  type ToolProgress,
  toolResultForModel,
} from '@candor/tools';
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import {
  type CallToolResult,
  createMcpHandler,
  isInitializeRequest,
  type McpRequestContext,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import {
  serveStdio,
  StdioServerTransport,
} from '@modelcontextprotocol/server/stdio';
import { BreakerWatch } from './breaker-watch.ts';
import {
  checkElicitApproval,
  type ElicitApprovalOptions,
  elicitApprover,
} from './elicit-approval.ts';
import { outcomeEnvelope, outcomeEnvelopeSchema } from './outcome-envelope.ts';

/** Options shared by both transports of {@link serveRegistry}. */
export interface ServeOptions {
  /** The server name MCP clients see. `candor` unless set. */
  readonly name?: string;
  /** The server version MCP clients see. */
  readonly version?: string;
  /**
   * Leave tools whose circuit is open out of `tools/list` (they come back, with a
   * `notifications/tools/list_changed`, when the breaker lets a trial call through). Listed by
   * default: a call to one then answers CIRCUIT_OPEN at once.
   */
  readonly hideOpenCircuits?: boolean;
  /**
   * Ask the person at the client to approve calls, with MCP elicitation, where the client
   * declared the `elicitation` capability; their answer decides instead of the registry's
   * approval gate. Calls from other clients (and calls `when` leaves out) go to the registry's
   * gate. `true` asks about every call. See {@link ElicitApprovalOptions}.
   */
  readonly elicitApproval?: ElicitApprovalOptions | true;
  /** pino-compatible; silent by default. */
  readonly logger?: Logger;
}

/** Serve over the process's stdin and stdout (how Claude Code and most clients start servers). */
export interface StdioServeOptions extends ServeOptions {
  readonly transport: 'stdio';
  /** Streams to use instead of `process.stdin` / `process.stdout` (tests, embedding). */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

/** Serve Streamable HTTP on `http://{host}:{port}/mcp`. */
export interface HttpServeOptions extends ServeOptions {
  readonly transport: 'http';
  /** `127.0.0.1` unless set: loopback only. Anything else is the caller's explicit choice. */
  readonly host?: string;
  /** 0 (any free port) unless set. */
  readonly port?: number;
  /** When set, every request must carry `Authorization: Bearer <token>`; others get 401. */
  readonly bearerToken?: string;
}

/** A running {@link serveRegistry}. */
export interface RegistryService {
  /** The endpoint, for the HTTP transport. */
  readonly url: URL | undefined;
  /**
   * Tells connected clients the tool list changed (`notifications/tools/list_changed`). Not
   * needed after `register()` (the registry's `tool:registered` event sends it) nor when a
   * breaker opens or closes; for changes the registry cannot see.
   */
  toolsChanged(): void;
  /** Stops serving: the HTTP server closes, the stdio streams are released. */
  close(): Promise<void>;
}

const DEFAULT_NAME = 'candor';
const DEFAULT_VERSION = '0.0.0';

/**
 * Serves every tool of a registry over MCP. `tools/list` comes from `registry.specs()`, each tool
 * advertising the {@link OutcomeEnvelope} as its output schema; `tools/call` goes through
 * `registry.call()` (nothing bypasses the seam): the content is exactly what
 * `toolResultForModel` gives a model, `isError` is true on error only, and `structuredContent`
 * carries the outcome. A client's `notifications/cancelled` aborts the call's signal.
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
  // A logger that throws loses its line, never an answer to a client. Guarded once: each
  // server made below is given the guarded logger, which guardLogger returns as is.
  const guarded = guardLogger(options.logger);
  const logger = guarded.child({ component: 'mcp-server' });
  const serverOptions =
    options.logger === undefined ? options : { ...options, logger: guarded };
  // The low-level Server, not McpServer: tools here are listed per request from the registry,
  // with its own JSON Schemas, and validated by the registry, not by the SDK a second time.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const servers = new Set<Server>();
  // The HTTP handler adds its own notifier: 2026-era clients listen there.
  const notifiers: (() => void)[] = [];
  const toolsChanged = (): void => {
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
    const server = createRegistryServer(
      registry,
      serverOptions,
      context.requestInfo?.signal,
    );
    servers.add(server);
    server.onclose = () => {
      servers.delete(server);
    };
    return server;
  };
  const onerror = (error: Error): void => {
    logger.warn({ error: error.message }, 'MCP transport error');
  };

  if (options.transport === 'stdio') {
    const handle = serveStdio(factory, {
      onerror,
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

  if (options.bearerToken === '') {
    stopWatching();
    // "Bearer " with nothing after it would be the password: refuse rather than guard nothing.
    throw new TypeError('serveRegistry: bearerToken must not be empty.');
  }
  // 2026-era requests are self-contained and go to the SDK's per-request handler; 2025-era
  // clients (most clients today) get a session each, so that their notifications/cancelled and
  // list_changed reach the server instance that runs their calls.
  const handler = createMcpHandler(factory, { legacy: 'reject', onerror });
  notifiers.push(() => {
    handler.notify.toolsChanged();
  });
  const modern = toNodeHandler(handler, { onerror });
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const expected =
    options.bearerToken === undefined
      ? undefined
      : digest(`Bearer ${options.bearerToken}`);
  const route = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    if (!authorised(request, expected)) {
      rpcError(response, 401, {
        code: -32001,
        message: 'Unauthorized',
        headers: { 'www-authenticate': 'Bearer' },
      });
      return;
    }
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        rpcError(response, 404, { code: -32001, message: 'Session not found' });
        return;
      }
      await session.handleRequest(request, response);
      return;
    }
    const body =
      request.method === 'POST' ? await readJson(request) : undefined;
    if (body === invalidBody) {
      rpcError(response, 400, {
        code: -32700,
        message: 'Parse error: the body is not JSON',
      });
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
        sessions.set(id, transport);
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
      failed(response, error, logger);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const url = new URL(
    `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
  );
  return {
    url,
    toolsChanged,
    close: async () => {
      stopWatching();
      await Promise.allSettled(
        [...sessions.values()].map((session) => session.close()),
      );
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

/**
 * One MCP `Server` (low-level SDK class) whose tools are the registry's: for hosts that bring
 * their own transport. {@link serveRegistry} makes one per connection (stdio) or request (HTTP).
 * `signal`, when given, cancels every call this server runs (an HTTP request that closed).
 */
export function createRegistryServer(
  registry: ToolRegistry,
  options: ServeOptions = {},
  signal?: AbortSignal,
  // eslint-disable-next-line @typescript-eslint/no-deprecated
): Server {
  checkElicitApproval(options.elicitApproval);
  const logger = guardLogger(options.logger);
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server = new Server(
    {
      name: options.name ?? DEFAULT_NAME,
      version: options.version ?? DEFAULT_VERSION,
    },
    { capabilities: { tools: { listChanged: true } } },
  );
  const outputSchema = outcomeEnvelopeSchema() as Tool['outputSchema'];
  // Per declared output schema (specs() hands out the same frozen object each time).
  const envelopes = new WeakMap<object, Tool['outputSchema']>();
  const envelopeFor = (
    dataSchema: JsonSchema | undefined,
  ): Tool['outputSchema'] => {
    if (dataSchema === undefined) return outputSchema;
    let envelope = envelopes.get(dataSchema);
    if (envelope === undefined) {
      envelope = outcomeEnvelopeSchema(dataSchema);
      envelopes.set(dataSchema, envelope);
    }
    return envelope;
  };
  server.setRequestHandler('tools/list', () => {
    const idempotent = new Map(
      registry.list().map((tool) => [tool.name, tool.idempotent]),
    );
    const tools: Tool[] = registry
      .specs({
        format: 'json-schema',
        hideOpenCircuits: options.hideOpenCircuits === true,
      })
      .map((spec) => ({
        name: spec.name,
        description: spec.description,
        // specs() gives object schemas: defineTool refuses any other input.
        inputSchema: spec.inputSchema as Tool['inputSchema'],
        outputSchema: envelopeFor(spec.outputSchema),
        annotations: { idempotentHint: idempotent.get(spec.name) === true },
      }));
    return { tools };
  });
  server.setRequestHandler('tools/call', async (request, context) => {
    const { name, arguments: args } = request.params;
    const progress = progressSender(context, logger);
    const approve =
      options.elicitApproval === undefined
        ? undefined
        : elicitApprover(server, context, options.elicitApproval);
    const response = await registry.call(name, args ?? {}, {
      ...(approve === undefined ? {} : { approve }),
      signal:
        signal === undefined
          ? context.mcpReq.signal
          : AbortSignal.any([signal, context.mcpReq.signal]),
      ...(progress === undefined ? {} : { onProgress: progress.send }),
    });
    await progress?.end();
    const { content, isError } = toolResultForModel(response, name);
    const result: CallToolResult = {
      content: [{ type: 'text', text: content }],
      structuredContent: { ...outcomeEnvelope(response) },
      isError,
    };
    // Every envelope has an object root, so the generic one projects the same as the tool's.
    return server.projectCallToolResult(result, outputSchema);
  });
  return server;
}

/**
 * Sends a tool's progress reports as `notifications/progress`, when the client asked for them
 * with a `progressToken`. MCP wants each report larger than the last and none after the result:
 * a report that goes backwards, or comes after `end()`, is dropped, and `end()` resolves once the
 * reports already accepted are sent, so the result goes out after them.
 */
function progressSender(
  context: ServerContext,
  logger: Logger,
):
  | { send: (progress: ToolProgress) => void; end: () => Promise<void> }
  | undefined {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = -Infinity;
  let ended = false;
  let sent = Promise.resolve();
  return {
    send: ({ progress, total, message }) => {
      if (ended || progress <= last) return;
      last = progress;
      const notification = {
        method: 'notifications/progress' as const,
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      };
      sent = sent
        .then(() => context.mcpReq.notify(notification))
        .catch((error: unknown) => {
          logger.debug({ error: describe(error) }, 'progress not sent');
        });
    },
    end: () => {
      ended = true;
      return sent;
    },
  };
}

function authorised(
  request: IncomingMessage,
  expected: Buffer | undefined,
): boolean {
  if (expected === undefined) return true;
  // Digests of equal length, compared in constant time: neither the token's bytes nor its
  // length can be guessed from how long a refusal takes.
  const header = request.headers.authorization ?? '';
  // The scheme name is case-insensitive (RFC 9110, section 11.1); the token itself is not.
  const given = /^bearer /i.test(header) ? `Bearer ${header.slice(7)}` : header;
  return timingSafeEqual(digest(given), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function failed(
  response: ServerResponse,
  error: unknown,
  logger: Logger,
): void {
  logger.error({ error: describe(error) }, 'MCP request failed');
  if (!response.headersSent) response.writeHead(500);
  response.end();
}

const invalidBody = Symbol('invalid body');
const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return invalidBody;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return invalidBody;
  }
}

function rpcError(
  response: ServerResponse,
  status: number,
  error: { code: number; message: string; headers?: Record<string, string> },
): void {
  response
    .writeHead(status, { 'content-type': 'application/json', ...error.headers })
    .end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: error.code, message: error.message },
      }),
    );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
