import { type RegisterOptions, type ToolRegistry } from '@candor/registry';
import {
  defineTool,
  guardLogger,
  type JsonSchema,
  type Logger,
  TOOL_NAME_PATTERN,
  type ToolProgress,
  ToolResponse,
  type ToolRunContext,
} from '@candor/tools';
import {
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { Tool, Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { remoteInputSchema } from './remote-input-schema.ts';
import { responseFromMcp, responseFromThrown } from './response-from-mcp.ts';

/** An MCP server started as a child process and spoken to over its stdin and stdout. */
export interface StdioServerSource {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface HttpServerSource {
  readonly url: string | URL;
  /** Sent with every request: `{ authorization: 'Bearer …' }`, say. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Where {@link importMcpTools} finds the server. */
export type McpServerSource =
  { readonly stdio: StdioServerSource } | { readonly http: HttpServerSource };

/** How a lost server is reached again. */
export interface ReconnectOptions {
  /** The first wait after a loss, in ms. 100 unless set. */
  readonly initialDelayMs?: number;
  /** Waits double up to this, in ms. 10 000 unless set. */
  readonly maxDelayMs?: number;
}

/** Options of {@link importMcpTools}. */
export interface ImportMcpToolsOptions {
  /** Put before every imported tool's name (`github_`, say), to keep servers apart. */
  readonly prefix?: string;
  /** The time limit of each imported tool, in ms; the registry's default unless set. */
  readonly timeoutMs?: number;
  /** Breaker options for each imported tool, or `false` for none. The registry's defaults. */
  readonly breaker?: RegisterOptions['breaker'];
  /** Respawn (stdio) or reconnect (HTTP) after the server is lost; `false` to stay down. */
  readonly reconnect?: ReconnectOptions | false;
  /** pino-compatible; silent by default. */
  readonly logger?: Logger;
}

/** The events of an {@link McpImport}. */
export interface McpImportEvents {
  /** Connected (again) and the tool list loaded. */
  connected: { readonly tools: readonly string[] };
  /** The server exited or the connection dropped; calls fail fast with NETWORK_ERROR. */
  disconnected: { readonly reason: string };
  /** The server's `list_changed` was applied to the registry. */
  refreshed: { readonly tools: readonly string[] };
}

/** A live import: its tools stay in the registry, following the server. */
export interface McpImport {
  /** The registry names of the imported tools, as of now. */
  readonly tools: readonly string[];
  /** Whether the server is connected now. */
  readonly connected: boolean;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof McpImportEvents>(
    event: K,
    listener: (payload: McpImportEvents[K]) => void,
  ): () => void;
  /** Disconnects for good (a stdio child is stopped); the tools then answer NETWORK_ERROR. */
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'candor', version: '0.0.0' };
// The registry owns each call's deadline; the SDK's own limit must never come first.
const SDK_TIMEOUT_MS = 2_147_483_647;

/**
 * Puts every tool of an MCP server into a registry, behind Candor's seam: each gets its own
 * breaker, timeout and telemetry, its arguments are validated locally against the server's JSON
 * Schema (a malformed call is INVALID_PARAM and never reaches the server), and every outcome is
 * a `ToolResponse` (see `responseFromMcp`). A lost server makes its tools fail fast with
 * NETWORK_ERROR (their breakers open); a stdio child is respawned and an HTTP server reconnected,
 * with backoff, and its tools refreshed. The server's `list_changed` refreshes them too.
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
  return link;
}

type Listeners = {
  [K in keyof McpImportEvents]: Set<(payload: McpImportEvents[K]) => void>;
};

class McpLink implements McpImport {
  readonly #source: McpServerSource;
  readonly #registry: ToolRegistry;
  readonly #options: ImportMcpToolsOptions;
  readonly #logger: Logger;
  readonly #listeners: Listeners = {
    connected: new Set(),
    disconnected: new Set(),
    refreshed: new Set(),
  };
  // Registry name → remote name, for every tool ever imported (a registry cannot forget one).
  readonly #names = new Map<string, string>();
  // Progress listeners by our own progress token. The SDK's `onprogress` forgets a call as soon
  // as its result arrives, while it hands notifications to handlers a microtask later, so the
  // reports that arrive together with the result would be lost; ours outlive the result.
  readonly #progress = new Map<string, (progress: ToolProgress) => void>();
  #progressTokens = 0;
  #offered = new Set<string>();
  #client: Client | undefined;
  #closed = false;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    source: McpServerSource,
    registry: ToolRegistry,
    options: ImportMcpToolsOptions,
  ) {
    this.#source = source;
    this.#registry = registry;
    this.#options = options;
    // A logger that throws loses its line, never a call's result nor a reconnection.
    this.#logger = guardLogger(options.logger, { component: 'mcp-import' });
    this.#delayMs = this.#initialDelay();
  }

  get tools(): readonly string[] {
    return [...this.#offered];
  }

  get connected(): boolean {
    return this.#client !== undefined;
  }

  on<K extends keyof McpImportEvents>(
    event: K,
    listener: (payload: McpImportEvents[K]) => void,
  ): () => void {
    const set = this.#listeners[event] as Set<
      (payload: McpImportEvents[K]) => void
    >;
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  #emit<K extends keyof McpImportEvents>(
    event: K,
    payload: McpImportEvents[K],
  ): void {
    for (const listener of this.#listeners[event] as Set<
      (payload: McpImportEvents[K]) => void
    >) {
      try {
        listener(payload);
      } catch (error: unknown) {
        this.#logger.error({ event, error: describe(error) }, 'listener threw');
      }
    }
  }

  /** The first connection: its failure is the caller's error, not a retry. */
  async start(): Promise<void> {
    await this.#connect();
  }

  async #connect(): Promise<void> {
    const client = new Client(CLIENT_INFO, {
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error, tools) => {
            if (error !== null || tools === null || this.#client !== client)
              return;
            this.#apply(tools);
            this.#emit('refreshed', { tools: this.tools });
          },
        },
      },
    });
    client.setNotificationHandler('notifications/progress', (notification) => {
      const { progressToken, progress, total, message } = notification.params;
      this.#progress.get(String(progressToken))?.({
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    });
    const transport = this.#transport();
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (this.#closed) {
      await client.close();
      return;
    }
    client.onclose = () => {
      this.#lost(client, 'the connection closed');
    };
    this.#client = client;
    this.#delayMs = this.#initialDelay();
    this.#apply(tools);
    this.#emit('connected', { tools: this.tools });
  }

  #transport(): Transport {
    const source = this.#source;
    if ('stdio' in source) {
      const { command, args, env, cwd } = source.stdio;
      return new StdioClientTransport({
        command,
        args: [...(args ?? [])],
        ...(env === undefined ? {} : { env: { ...env } }),
        ...(cwd === undefined ? {} : { cwd }),
        stderr: 'ignore',
      });
    }
    return new StreamableHTTPClientTransport(new URL(source.http.url), {
      ...(source.http.headers === undefined
        ? {}
        : { requestInit: { headers: { ...source.http.headers } } }),
    });
  }

  #lost(client: Client, reason: string): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#logger.warn({ reason }, 'MCP server lost');
    this.#emit('disconnected', { reason });
    this.#schedule();
  }

  #schedule(): void {
    const reconnect = this.#options.reconnect;
    if (this.#closed || reconnect === false) return;
    const delay = this.#delayMs;
    this.#delayMs = Math.min(delay * 2, reconnect?.maxDelayMs ?? 10_000);
    this.#timer = setTimeout(() => {
      this.#connect().catch((error: unknown) => {
        this.#logger.warn({ error: describe(error) }, 'MCP reconnect failed');
        this.#schedule();
      });
    }, delay);
    this.#timer.unref();
  }

  #initialDelay(): number {
    const reconnect = this.#options.reconnect;
    return reconnect === false ? 0 : (reconnect?.initialDelayMs ?? 100);
  }

  #apply(tools: readonly Tool[]): void {
    const offered = new Set<string>();
    for (const tool of tools) {
      const name = registryName(this.#options.prefix ?? '', tool.name);
      if (!TOOL_NAME_PATTERN.test(name)) {
        this.#logger.warn(
          { tool: tool.name },
          'MCP tool skipped: its name cannot be a Candor tool name',
        );
        continue;
      }
      offered.add(name);
      this.#names.set(name, tool.name);
      this.#registry.register(this.#define(name, tool), {
        replace: true,
        ...(this.#options.breaker === undefined
          ? {}
          : { breaker: this.#options.breaker }),
      });
    }
    // A tool the server no longer offers stays registered and says so.
    for (const name of this.#offered) {
      if (!offered.has(name))
        this.#registry.register(this.#gone(name), { replace: true });
    }
    this.#offered = offered;
  }

  #define(name: string, tool: Tool) {
    const remote = tool.name;
    return defineTool({
      name,
      description: tool.description ?? tool.title ?? `MCP tool ${remote}.`,
      input: remoteInputSchema(tool.inputSchema as JsonSchema),
      ...(tool.annotations?.idempotentHint === true
        ? { idempotent: true }
        : {}),
      ...(this.#options.timeoutMs === undefined
        ? {}
        : { timeoutMs: this.#options.timeoutMs }),
      run: (args, context) =>
        this.#call({
          remote,
          name,
          args,
          signal: context.signal,
          reportProgress: context.reportProgress,
        }),
    });
  }

  #gone(name: string) {
    return defineTool({
      name,
      description: `No longer offered by its MCP server.`,
      input: remoteInputSchema({ type: 'object' }),
      run: () =>
        ToolResponse.error(
          'NOT_FOUND',
          `The MCP server no longer offers "${this.#names.get(name) ?? name}".`,
        ),
    });
  }

  async #call(call: {
    remote: string;
    name: string;
    args: unknown;
    signal: AbortSignal;
    reportProgress: ToolRunContext['reportProgress'];
  }): Promise<ToolResponse> {
    const { remote, name, args, signal, reportProgress } = call;
    const client = this.#client;
    if (client === undefined) {
      return ToolResponse.error(
        'NETWORK_ERROR',
        this.#closed
          ? `The MCP server of "${name}" has been disconnected.`
          : `The MCP server of "${name}" is not connected; reconnecting.`,
      );
    }
    // Asked for only when our caller listens: the server's reports pass through.
    const progressToken =
      reportProgress === undefined
        ? undefined
        : `candor-${(this.#progressTokens += 1).toString(36)}`;
    if (progressToken !== undefined && reportProgress !== undefined)
      this.#progress.set(progressToken, reportProgress);
    try {
      const result = await client.callTool(
        {
          name: remote,
          arguments: args as Record<string, unknown>,
          ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
        },
        { signal, timeout: SDK_TIMEOUT_MS },
      );
      return responseFromMcp(result, name);
    } catch (error: unknown) {
      const response = responseFromThrown(error, name);
      // Over HTTP nothing closes when the server goes away: a failed request is the only sign.
      if (
        response.status === 'error' &&
        response.errorInfo.code === 'NETWORK_ERROR' &&
        !signal.aborted
      ) {
        this.#lost(client, response.errorInfo.message);
        client.close().catch(() => undefined);
      }
      return response;
    } finally {
      if (progressToken !== undefined) this.#progress.delete(progressToken);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close();
  }
}

function registryName(prefix: string, remote: string): string {
  // MCP allows dots and slashes in names; Candor names are a-z, A-Z, 0-9, _ and -.
  return `${prefix}${remote}`.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
