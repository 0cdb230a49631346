import { type Readable, type Writable } from 'node:stream';
import { type Logger } from '@candor/tools';
import { type ToolAnnotations } from '@modelcontextprotocol/server';
import { type ElicitApprovalOptions } from './elicit-approval.ts';

/** Options shared by both transports of `serveRegistry`. */
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
  /**
   * MCP tool annotations (`title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`,
   * `openWorldHint`) by tool name, sent in `tools/list` so that clients can, say, auto-approve
   * read-only tools. Each overrides, field by field, what the tool declares itself
   * (`defineTool`'s `annotations`; `idempotentHint` from its `idempotent`). Over HTTP
   * without a token, `readOnlyHint: true` decides which tools are served (see
   * {@link HttpServeOptions.allowWritesWithoutToken}).
   */
  readonly toolAnnotations?: Readonly<Record<string, ToolAnnotations>>;
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
  /**
   * Hostnames (no port; IPv6 in brackets) a request's `Host` header may name; any other gets
   * 403, so a web page whose DNS name was rebound to 127.0.0.1 cannot reach the server.
   * `localhost`, `127.0.0.1` and `[::1]` unless set, plus `host` when it is a specific address.
   * Set it when clients reach the server by another name (a LAN address, a proxy's name).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Hostnames (no scheme or port) a request's `Origin` header may name; a request from a web
   * page of any other origin gets 403 (the MCP spec's Streamable HTTP security rule). Requests
   * without `Origin` (every non-browser client) pass. Unless set: `localhost`, `127.0.0.1` and
   * `[::1]` on the server's own port only, so a page served from another local port gets 403
   * too. Hostnames listed here pass on any port.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Without a `bearerToken`, anyone on the machine can call the server, so only tools declared
   * read-only (`readOnlyHint: true`, declared by the tool or in {@link ServeOptions.toolAnnotations}) are listed and
   * run; the others (for the builtins: `write_file` and `shell`) answer ACCESS_DENIED. `true`
   * serves every tool without a token anyway. Ignored when a token is set.
   */
  readonly allowWritesWithoutToken?: boolean;
  /**
   * Sessions (2025-era clients) kept at once: opening one more closes the one idle longest.
   * 64 unless set.
   */
  readonly maxSessions?: number;
  /** A session with no request for this long is closed. 15 minutes unless set. */
  readonly sessionIdleMs?: number;
  /** Larger request bodies get 413 without being read. 4 MiB unless set. */
  readonly maxBodyBytes?: number;
}

/** A running `serveRegistry`. */
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
