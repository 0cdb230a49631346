import { afterEach, vi } from 'vitest';
import {
  LlmTestServer,
  type LlmTestServerOptions,
  type RunningLlmTestServer,
} from '../llm-test-server.ts';

/** A started server and its base URL. */
export interface Served {
  readonly server: LlmTestServer;
  readonly url: string;
}

/**
 * The set-up every protocol test shares: returns `serve(define, options)`, which starts a
 * scripted server on 127.0.0.1, and closes it after each test.
 */
export function useServer(): (
  define: (server: LlmTestServer) => void,
  options?: LlmTestServerOptions,
) => Promise<Served> {
  let running: RunningLlmTestServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return async (define, options = {}) => {
    const server = new LlmTestServer(options);
    define(server);
    running = await server.start();
    return { server, url: running.url };
  };
}

/**
 * Returns `start(server)`, which starts an already scripted server and resolves with its URL;
 * after each test the server is closed and real timers are restored.
 */
export function useStart(): (server: LlmTestServer) => Promise<string> {
  let running: RunningLlmTestServer | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await running?.close();
    running = undefined;
  });
  return async (server) => {
    running = await server.start();
    return running.url;
  };
}

/** A tracked server slot for tests that close their server mid-test. */
export interface RunningSlot {
  /** Starts `server`; it is closed after the test unless `close()` ran first. */
  start(server: LlmTestServer): Promise<RunningLlmTestServer>;
  /** Closes the running server now. */
  close(): Promise<void>;
}

/** Returns a {@link RunningSlot} whose server is closed after each test. */
export function useRunning(): RunningSlot {
  let running: RunningLlmTestServer | undefined;
  const close = async (): Promise<void> => {
    const current = running;
    running = undefined;
    await current?.close();
  };
  afterEach(close);
  return {
    async start(server) {
      running = await server.start();
      return running;
    },
    close,
  };
}
