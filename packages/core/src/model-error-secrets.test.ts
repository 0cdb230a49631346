import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ToolRegistry } from '@candor/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from './agent.ts';
import { type ChatModel } from './chat-model.ts';
import { anthropic } from './wires/anthropic/anthropic.ts';
import { gemini } from './wires/gemini/gemini.ts';
import { openaiCompatible } from './wires/openai-compatible/openai-compatible.ts';

const KEY = 'sk-canary-4be1f09d';

const wires: readonly {
  readonly name: string;
  readonly model: (url: string, apiKey: string) => ChatModel;
}[] = [
  {
    name: 'openai-compatible',
    model: (url, apiKey) =>
      openaiCompatible({
        baseURL: `${url}/v1`,
        apiKey,
        model: 'm',
        maxRetries: 0,
      }),
  },
  {
    name: 'anthropic',
    model: (url, apiKey) =>
      anthropic({ baseURL: url, apiKey, model: 'm', maxRetries: 0 }),
  },
  {
    name: 'gemini',
    model: (url, apiKey) =>
      gemini({ baseURL: url, apiKey, model: 'm', maxRetries: 0 }),
  },
];

let server: Server | undefined;

afterEach(async () => {
  const closing = server;
  server = undefined;
  if (closing !== undefined) {
    closing.closeAllConnections();
    await new Promise((done) => closing.close(done));
  }
});

/** A server that answers 401 quoting whatever key it was sent, as some proxies do. */
async function echoingServer(): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    const sent =
      request.headers['x-api-key'] ??
      request.headers['x-goog-api-key'] ??
      request.headers.authorization ??
      '';
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: { message: `Incorrect API key provided: ${String(sent)}` },
      }),
    );
  });
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

function expectNoKey(result: unknown): void {
  expect(JSON.stringify(result)).not.toContain('canary');
}

describe.each(wires)(
  '$name: the API key never appears in a model error',
  ({ model }) => {
    it('when the server quotes it back in its error body', async () => {
      const url = await echoingServer();
      const result = await new Agent({
        model: model(url, KEY),
        registry: new ToolRegistry(),
      }).run('hi');
      expect(result.stopReason).toBe('model_error');
      expect(result.modelError?.message).toContain('[REDACTED]');
      expectNoKey(result.modelError);
    });

    it('when fetch refuses the key as a header value and quotes it', async () => {
      // A key with a line break (two keys pasted into one variable) is refused by fetch with a
      // TypeError that quotes the whole header value.
      const result = await new Agent({
        model: model('http://127.0.0.1:9', `${KEY}\nsecond-line`),
        registry: new ToolRegistry(),
      }).run('hi');
      expect(result.stopReason).toBe('model_error');
      expect(result.modelError?.message).toMatch(/invalid header value/);
      expectNoKey(result.modelError);
    });
  },
);
