import { afterEach } from 'vitest';
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
