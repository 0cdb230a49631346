import { type ToolRegistry } from '@candor/registry';
import {
  guardLogger,
  type Logger,
  type ToolProgress,
  ToolResponse,
  type ToolRunContext,
} from '@candor/tools';
import { Client, type Tool } from '@modelcontextprotocol/client';
import {
  type ImportMcpToolsOptions,
  type McpImport,
  type McpImportEvents,
  type McpServerSource,
} from './import-mcp-options.ts';
import { ImportEvents } from './import-events.ts';
import { summariseIssues } from './invalid-result-summary.ts';
import { namesHeldByOthers, whySkipped } from './names-held-by-others.ts';
import { type ReadSource, readSource } from './mcp-transport.ts';
import { goneTool, importedTool } from './imported-tool.ts';
import { responseFromMcp, responseFromThrown } from './response-from-mcp.ts';

const CLIENT_INFO = { name: 'candor', version: '0.0.0' };
// The registry owns each call's deadline; the SDK's own limit must never come first.
const SDK_TIMEOUT_MS = 2_147_483_647;
// How long a ping may take to prove that a session outlived one failed request.
const PROBE_TIMEOUT_MS = 10_000;

/** A call waiting for its result, which an unreadable frame from the server can end early. */
interface InFlight {
  readonly client: Client;
  fail(): void;
}

/** One import: the connection to a server, and its tools in the registry. */
export class McpLink implements McpImport {
  readonly #source: ReadSource;
  readonly #registry: ToolRegistry;
  readonly #options: ImportMcpToolsOptions;
  readonly #logger: Logger;
  readonly #events: ImportEvents;
  // Registry name → remote name, for every tool ever imported (a registry cannot forget one).
  readonly #names = new Map<string, string>();
  // Progress listeners by our own progress token. The SDK's `onprogress` forgets a call as soon
  // as its result arrives, while it hands notifications to handlers a microtask later, so the
  // reports that arrive together with the result would be lost; ours outlive the result.
  readonly #progress = new Map<string, (progress: ToolProgress) => void>();
  readonly #inFlight = new Set<InFlight>();
  readonly #probing = new WeakSet<Client>();
  #progressTokens = 0;
  #offered = new Set<string>();
  #client: Client | undefined;
  #used = false;
  #closed = false;
  #delayMs: number;
  #nextAttemptAt = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    source: McpServerSource,
    registry: ToolRegistry,
    options: ImportMcpToolsOptions,
  ) {
    this.#source = readSource(source);
    this.#registry = registry;
    this.#options = options;
    // A logger that throws loses its line, never a call's result nor a reconnection.
    this.#logger = guardLogger(options.logger, { component: 'mcp-import' });
    this.#events = new ImportEvents(this.#logger);
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
    return this.#events.on(event, listener);
  }

  /** The first connection: its failure is the caller's error, not a retry. */
  async start(): Promise<void> {
    await this.#connect();
  }

  /** Whether a lost connection is built again: only the option shapes can be. */
  get #reconnects(): boolean {
    return (
      this.#options.reconnect !== false &&
      this.#source.kind === 'rebuildable' &&
      !this.#closed
    );
  }

  async #connect(): Promise<void> {
    const source = this.#source;
    const given = source.kind === 'client' ? source.client : undefined;
    if (this.#used && source.kind !== 'rebuildable') {
      throw new Error('a given MCP Client or Transport cannot be reconnected');
    }
    this.#used = true;
    const client =
      given ??
      new Client(CLIENT_INFO, {
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error, tools) => {
              if (error === null && tools !== null)
                this.#refreshed(client, tools);
            },
          },
        },
      });
    if (given !== undefined) {
      // A client built elsewhere: its list_changed handler becomes ours.
      given.setNotificationHandler(
        'notifications/tools/list_changed',
        async () => {
          const { tools } = await given.listTools();
          this.#refreshed(given, tools);
        },
      );
    }
    client.setNotificationHandler('notifications/progress', (notification) => {
      const { progressToken, progress, total, message } = notification.params;
      this.#progress.get(String(progressToken))?.({
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    });
    const previousError = client.onerror;
    client.onerror = (error: Error) => {
      previousError?.(error);
      this.#transportError(client, error);
    };
    if (source.kind !== 'client') {
      await client.connect(
        source.kind === 'rebuildable' ? source.make() : source.transport,
      );
    }
    const { tools } = await client.listTools();
    if (this.#closed) {
      await client.close();
      return;
    }
    const previousClose = client.onclose;
    client.onclose = () => {
      previousClose?.();
      this.#lost(client, 'the connection closed');
    };
    this.#client = client;
    this.#delayMs = this.#initialDelay();
    this.#apply(tools);
    this.#events.emit('connected', { tools: this.tools });
  }

  #refreshed(client: Client, tools: readonly Tool[]): void {
    if (this.#client !== client) return;
    this.#apply(tools);
    this.#events.emit('refreshed', { tools: this.tools });
  }

  /**
   * A frame the SDK could not read as JSON-RPC (a `result` of `null` or a string, say) is
   * dropped by it, so the call it answered would wait for its time limit: every call in flight
   * on this client ends now with INTERNAL_ERROR instead, since which one it answered is unknown.
   */
  #transportError(client: Client, error: Error): void {
    const issues = (error as { issues?: unknown }).issues;
    if (!Array.isArray(issues)) {
      this.#logger.debug({ error: error.message }, 'MCP transport error');
      return;
    }
    // Which branch of JSON-RPC the frame failed is noise to a model; the log keeps it.
    this.#logger.warn(
      { why: summariseIssues(issues) },
      'MCP server sent a frame that is not JSON-RPC',
    );
    for (const call of this.#inFlight) {
      if (call.client === client) call.fail();
    }
  }

  #lost(client: Client, reason: string): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#logger.warn({ reason }, 'MCP server lost');
    this.#events.emit('disconnected', { reason });
    this.#schedule();
  }

  /**
   * One failed request does not prove the session gone (a cut socket, a proxy's hiccup): a ping
   * decides, and only its failure marks the import disconnected.
   */
  #probe(client: Client, reason: string): void {
    if (this.#probing.has(client) || this.#client !== client) return;
    this.#probing.add(client);
    client.ping({ timeout: PROBE_TIMEOUT_MS }).then(
      () => {
        this.#probing.delete(client);
      },
      () => {
        this.#probing.delete(client);
        this.#lost(client, reason);
        client.close().catch(() => undefined);
      },
    );
  }

  #schedule(): void {
    if (!this.#reconnects) return;
    const delay = this.#delayMs;
    this.#delayMs = Math.min(
      delay * 2,
      (this.#options.reconnect === false
        ? undefined
        : this.#options.reconnect?.maxDelayMs) ?? 10_000,
    );
    this.#nextAttemptAt = Date.now() + delay;
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
    const taken = namesHeldByOthers(this.#registry, this.#names);
    for (const tool of tools) {
      const name = registryName(this.#options.prefix ?? '', tool.name);
      const skipped = whySkipped(name, taken);
      if (skipped !== undefined) {
        this.#logger.warn({ tool: tool.name }, skipped);
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
    return importedTool({
      name,
      tool,
      timeoutMs: this.#options.timeoutMs,
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
    return goneTool(name, this.#names.get(name) ?? name);
  }

  #notConnected(name: string): ToolResponse {
    if (!this.#reconnects) {
      return ToolResponse.error(
        'NETWORK_ERROR',
        this.#closed
          ? `The MCP server of "${name}" has been disconnected.`
          : `The MCP server of "${name}" is not connected, and will not be reconnected.`,
      );
    }
    // The import's own circuit: nothing is tried until the reconnection, so the tool's breaker
    // does not count these (CIRCUIT_OPEN never counts) and is not found open once it is back.
    const waitMs = Math.max(1, this.#nextAttemptAt - Date.now());
    return ToolResponse.error(
      'CIRCUIT_OPEN',
      `The MCP server of "${name}" is not connected; reconnecting (next attempt in ${waitMs} ms).`,
      { retryable: true, retryAfterMs: waitMs },
    );
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
    if (client === undefined) return this.#notConnected(name);
    // Asked for only when our caller listens: the server's reports pass through.
    const progressToken =
      reportProgress === undefined
        ? undefined
        : `candor-${(this.#progressTokens += 1).toString(36)}`;
    if (progressToken !== undefined && reportProgress !== undefined)
      this.#progress.set(progressToken, reportProgress);
    const abandon = new AbortController();
    let inFlight: InFlight | undefined;
    const unreadable = new Promise<ToolResponse>((resolve) => {
      inFlight = {
        client,
        fail: () => {
          // The SDK still waits for this request: cancel it, so nothing is left pending.
          abandon.abort();
          resolve(
            ToolResponse.error(
              'INTERNAL_ERROR',
              `The MCP server sent a frame that is not valid JSON-RPC (a result that is not an object, say) while "${name}" was running, so its answer cannot be read.`,
            ),
          );
        },
      };
    });
    if (inFlight !== undefined) this.#inFlight.add(inFlight);
    try {
      const answered = client
        .callTool(
          {
            name: remote,
            arguments: args as Record<string, unknown>,
            ...(progressToken === undefined
              ? {}
              : { _meta: { progressToken } }),
          },
          {
            signal: AbortSignal.any([signal, abandon.signal]),
            timeout: SDK_TIMEOUT_MS,
          },
        )
        .then((result) => responseFromMcp(result, name));
      return await Promise.race([answered, unreadable]);
    } catch (error: unknown) {
      const response = responseFromThrown(error, name);
      // Over HTTP nothing closes when the server goes away: a failed request is the only sign,
      // and a ping tells whether it was this request or the whole session.
      if (
        response.status === 'error' &&
        response.errorInfo.code === 'NETWORK_ERROR' &&
        !signal.aborted
      ) {
        this.#probe(client, response.errorInfo.message);
      }
      return response;
    } finally {
      if (inFlight !== undefined) this.#inFlight.delete(inFlight);
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
