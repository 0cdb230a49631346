import { type Client, type Transport } from '@modelcontextprotocol/client';
import { type RegisterOptions } from '@candor/registry';
import { type Logger } from '@candor/tools';

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
  /**
   * A response body (or one event of an event stream) larger than this stops being read and
   * fails the calls it answers, so a server that never ends its answer cannot fill memory.
   * 16 MiB unless set.
   */
  readonly maxResponseBytes?: number;
}

/**
 * Where `importMcpTools` finds the server: a command to start, an HTTP endpoint, or an SDK
 * `Client` (connected) or `Transport` (not yet started) you built yourself, for OAuth, a custom
 * `fetch` or the legacy SSE transport. A given `Client` or `Transport` cannot be rebuilt, so
 * after a loss it is not reconnected.
 */
export type McpServerSource =
  | { readonly stdio: StdioServerSource }
  | { readonly http: HttpServerSource }
  | Client
  | Transport;

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
  /**
   * The server exited or the connection dropped; calls fail fast, with CIRCUIT_OPEN while a
   * reconnection is due (which the breakers do not count) and NETWORK_ERROR once it never is.
   */
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
