import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useRunning } from './__fixtures__/serve.ts';
import { LlmTestServer } from './llm-test-server.ts';

const running = useRunning();

async function started(): Promise<string> {
  const server = new LlmTestServer();
  server.conversation('c', (c) => {
    c.step('hi').whenUser(/hi/).responds('hello').complete();
  });
  return (await running.start(server)).url;
}

function postRaw(url: string, path: string, body: string): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer k',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    },
    body,
  });
}

const deepArray = (depth: number): string =>
  `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('LlmTestServer against hostile clients ("never crash the server")', () => {
  it.each([
    ['a JSON null', '/v1/chat/completions', 'null'],
    ['a JSON array', '/v1/messages', '[]'],
    [
      '__proto__ and constructor keys',
      '/v1/chat/completions',
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"model":"m","messages":[{"role":"user","content":"x","__proto__":{"polluted":1}}]}',
    ],
    [
      'content nested 50 000 deep',
      '/v1/chat/completions',
      `{"model":"m","messages":[{"role":"user","content":${deepArray(50_000)}}]}`,
    ],
    [
      'Anthropic blocks that are not objects',
      '/v1/messages',
      '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[null,1,"x",{"type":"tool_result"}]}]}',
    ],
  ])('answers %s with a 400 and keeps serving', async (_label, path, body) => {
    const url = await started();
    const refused = await postRaw(url, path, body);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toHaveProperty('error');
    expect(Object.prototype).not.toHaveProperty('polluted');
    const answered = await postRaw(
      url,
      '/v1/chat/completions',
      '{"model":"m","messages":[{"role":"user","content":"hi"}]}',
    );
    expect(answered.status).toBe(200);
  });

  it('close() destroys a connection that sent half a request and stalls', async () => {
    const url = new URL(await started());
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"model":',
    );
    await running.close();
    // Resolves only when the server ended the socket: nothing of it outlives close().
    await closed;
    expect(socket.destroyed).toBe(true);
  });
});
