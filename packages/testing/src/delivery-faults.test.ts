import { describe, expect, it } from 'vitest';
import { useRunning } from './__fixtures__/serve.ts';
import {
  anthropicChat,
  anthropicHeaders,
  openAiChat,
  parseEvents,
  post,
  readEvents,
  readUntilError,
} from './__fixtures__/wire-client.ts';
import { deliveryFaults, type DeliveryFault } from './delivery-faults.ts';
import { LlmTestServer } from './llm-test-server.ts';

const running = useRunning();

const words = 'alpha beta gamma delta epsilon';

/** A server whose single step streams `words` (five text frames) after optional faults. */
async function serveWith(
  ...faults: readonly DeliveryFault[]
): Promise<{ server: LlmTestServer; url: string }> {
  const server = new LlmTestServer();
  server.conversation('c', (c) => {
    const step = c.step('a');
    for (const fault of faults) {
      step.deliversWith(fault);
    }
    step.responds(words);
  });
  const { url } = await running.start(server);
  return { server, url };
}

function streamChat(url: string): Promise<Response> {
  return post(
    `${url}/v1/chat/completions`,
    openAiChat([{ role: 'user', content: 'hi' }], { stream: true }),
  );
}

describe('delivery faults', () => {
  it('resetBeforeHeaders resets the socket before any byte; the next attempt succeeds', async () => {
    const { server, url } = await serveWith(
      deliveryFaults.resetBeforeHeaders(),
    );
    const failure: unknown = await streamChat(url).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    const attempt = await server.waitForAttempt(1);
    expect(await attempt.settled).toBe('server-aborted');
    expect(attempt.status).toBeUndefined();
    expect(attempt.writes).toEqual([]);
    const ok = await streamChat(url);
    expect(ok.status).toBe(200);
    expect((await readEvents(ok)).at(-1)?.data).toBe('[DONE]');
  });

  it('stallBeforeFirstFrame sends 200 headers and then nothing until resume()', async () => {
    const { server, url } = await serveWith(
      deliveryFaults.stallBeforeFirstFrame(),
    );
    const response = await streamChat(url);
    expect(response.status).toBe(200);
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.stalled();
    expect(attempt.framesSent).toBe(0);
    expect(attempt.outcome).toBeUndefined();
    attempt.stream.resume();
    const events = await readEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(await attempt.settled).toBe('completed');
  });

  it('stallAfterFrames(n) stalls after n frames; closing the server ends it as "stalled"', async () => {
    const { server, url } = await serveWith(deliveryFaults.stallAfterFrames(2));
    const response = await streamChat(url);
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.stalled();
    expect(attempt.framesSent).toBe(2);
    const reading = readUntilError(response);
    await running.close();
    expect(await attempt.settled).toBe('stalled');
    const { text, error } = await reading;
    expect(error).toBeInstanceOf(Error);
    expect(parseEvents(text)).toHaveLength(2);
  });

  it('a client that gives up on a stalled stream leaves the outcome "stalled"', async () => {
    const { server, url } = await serveWith(deliveryFaults.stallAfterFrames(1));
    const abort = new AbortController();
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([{ role: 'user', content: 'hi' }], { stream: true }),
      { signal: abort.signal },
    );
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.stalled();
    const reading = readUntilError(response);
    abort.abort();
    expect(await attempt.settled).toBe('stalled');
    expect((await reading).error).toBeInstanceOf(Error);
  });

  it('abortAfterFrames(n) sends n whole frames, then destroys the socket', async () => {
    const { server, url } = await serveWith(deliveryFaults.abortAfterFrames(3));
    const { text, error } = await readUntilError(await streamChat(url));
    expect(error).toBeInstanceOf(Error);
    expect(parseEvents(text)).toHaveLength(3);
    const attempt = await server.waitForAttempt(1);
    expect(await attempt.settled).toBe('server-aborted');
    expect(attempt.framesSent).toBe(3);
  });

  it('abortMidFrame(n) cuts frame n in half, then destroys the socket', async () => {
    const { server, url } = await serveWith(deliveryFaults.abortMidFrame(2));
    const { text, error } = await readUntilError(await streamChat(url));
    expect(error).toBeInstanceOf(Error);
    const attempt = await server.waitForAttempt(1);
    expect(await attempt.settled).toBe('server-aborted');
    expect(attempt.framesSent).toBe(2);
    const whole = attempt.frames.join('');
    expect(text.startsWith(whole)).toBe(true);
    const partial = text.slice(whole.length);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.endsWith('\n\n')).toBe(false);
    expect(attempt.writes.at(-1)).toBe(Buffer.byteLength(partial));
  });

  it('abortMidFrame(0) on a JSON response breaks the body against its content-length', async () => {
    const { url } = await serveWith(deliveryFaults.abortMidFrame(0));
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([{ role: 'user', content: 'hi' }]),
    );
    expect(response.status).toBe(200);
    await expect(response.json()).rejects.toThrow();
  });

  it('inStreamError sends the OpenAI error frame after n frames and ends without [DONE]', async () => {
    const { server, url } = await serveWith(
      deliveryFaults.inStreamError(2, {
        code: 'server_error',
        message: 'boom',
      }),
    );
    const events = await readEvents(await streamChat(url));
    expect(events).toHaveLength(3);
    expect(JSON.parse(events[2]?.data ?? '')).toEqual({
      error: {
        message: 'boom',
        type: 'server_error',
        param: null,
        code: 'server_error',
      },
    });
    expect(await (await server.waitForAttempt(1)).settled).toBe('completed');
  });

  it('inStreamError sends Anthropic `event: error` as the first event', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('a')
        .deliversWith(
          deliveryFaults.inStreamError(0, {
            code: 'overloaded_error',
            message: 'Overloaded',
          }),
        )
        .responds('hi');
    });
    const { url } = await running.start(server);
    const response = await post(
      `${url}/v1/messages`,
      anthropicChat([{ role: 'user', content: 'hi' }], { stream: true }),
      { headers: anthropicHeaders },
    );
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.map((event) => event.event)).toEqual(['error']);
    expect(JSON.parse(events[0]?.data ?? '')).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });

  it('malformedFrame(n) breaks the JSON of frame n and keeps the rest of the stream', async () => {
    const { url } = await serveWith(deliveryFaults.malformedFrame(1));
    const events = await readEvents(await streamChat(url));
    const parse = (index: number) => () => {
      JSON.parse(events[index]?.data ?? '');
    };
    expect(parse(1)).toThrow(SyntaxError);
    expect(parse(2)).not.toThrow();
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('splitFrames writes the same bytes in pieces cut at the given offsets, even inside a character', async () => {
    const server = new LlmTestServer();
    const text = 'éééééééééééééééééééé';
    server.conversation('plain', (c) => {
      c.step('plain').whenUser('plain').responds(text);
    });
    const { url } = await running.start(server);
    const ask = (content: string): Promise<Response> =>
      post(
        `${url}/v1/chat/completions`,
        openAiChat([{ role: 'user', content }], { stream: true }),
      );
    const plain = Buffer.from(await (await ask('plain')).arrayBuffer());
    // The second byte of the first "é" (0xC3 0xA9): a cut there splits the character.
    const inside = plain.indexOf(0xc3) + 1;
    const offsets = [3, inside, inside + 1, inside + 100];
    server.conversation('split', (c) => {
      c.step('split')
        .whenUser('split')
        .deliversWith(deliveryFaults.splitFrames(offsets))
        .responds(text);
    });
    const split = Buffer.from(await (await ask('split')).arrayBuffer());
    // Same bytes apart from the attempt-numbered id, which has the same length.
    expect(split.toString('utf8').replaceAll('chatcmpl-2', 'chatcmpl-1')).toBe(
      plain.toString('utf8'),
    );
    const attempt = await server.waitForAttempt(2);
    expect(attempt.writes).toEqual([
      3,
      inside - 3,
      1,
      99,
      split.length - inside - 100,
    ]);
    expect((split[inside] ?? 0) & 0xc0).toBe(0x80);
    expect(attempt.framesSent).toBe(parseEvents(split.toString('utf8')).length);
  });

  it('noTerminalFrame ends the stream cleanly without [DONE] or message_stop', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('openai')
        .whenUser('o')
        .deliversWith(deliveryFaults.noTerminalFrame())
        .responds('x');
      c.step('anthropic')
        .whenUser('a')
        .deliversWith(deliveryFaults.noTerminalFrame())
        .responds('x');
    });
    const { url } = await running.start(server);
    const openAi = await readEvents(
      await post(
        `${url}/v1/chat/completions`,
        openAiChat([{ role: 'user', content: 'o' }], { stream: true }),
      ),
    );
    expect(openAi.length).toBeGreaterThan(1);
    expect(openAi.some((event) => event.data === '[DONE]')).toBe(false);
    const anthropic = await readEvents(
      await post(
        `${url}/v1/messages`,
        anthropicChat([{ role: 'user', content: 'a' }], { stream: true }),
        { headers: anthropicHeaders },
      ),
    );
    expect(anthropic.at(-1)?.event).toBe('message_delta');
    expect(server.journal.map((entry) => entry.outcome)).toEqual([
      'completed',
      'completed',
    ]);
  });

  it('faults are queued attempts: each consumes one, then the step succeeds', async () => {
    const { server, url } = await serveWith(
      deliveryFaults.abortAfterFrames(0),
      deliveryFaults.noTerminalFrame(),
    );
    await readUntilError(await streamChat(url));
    await readEvents(await streamChat(url));
    const events = await readEvents(await streamChat(url));
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(server.journal.map((entry) => entry.stepAttempt)).toEqual([1, 2, 3]);
  });

  it('fault builders refuse negative or fractional counts', () => {
    expect(() => deliveryFaults.abortAfterFrames(-1)).toThrow(RangeError);
    expect(() => deliveryFaults.stallAfterFrames(1.5)).toThrow(RangeError);
    expect(() => deliveryFaults.splitFrames([2, -3])).toThrow(RangeError);
  });
});

describe('stream controller', () => {
  it('sent(n), stall(), resume() drive a stream frame by frame', async () => {
    const { server, url } = await serveWith(
      deliveryFaults.stallBeforeFirstFrame(),
    );
    const response = await streamChat(url);
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.stalled();
    attempt.stream.resume();
    await attempt.stream.sent(1);
    attempt.stream.stall();
    await attempt.stream.stalled();
    const stalledAt = attempt.framesSent;
    expect(stalledAt).toBeGreaterThanOrEqual(1);
    expect(attempt.outcome).toBeUndefined();
    attempt.stream.resume();
    await attempt.stream.sent(stalledAt + 1);
    const events = await readEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(await attempt.settled).toBe('completed');
  });

  it('abort() destroys the socket mid-stream as "server-aborted"', async () => {
    const { server, url } = await serveWith(deliveryFaults.stallAfterFrames(2));
    const response = await streamChat(url);
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.sent(2);
    const reading = readUntilError(response);
    attempt.stream.abort();
    expect(await attempt.settled).toBe('server-aborted');
    expect((await reading).error).toBeInstanceOf(Error);
  });

  it('sent(n) and stalled() reject when the attempt ends first', async () => {
    const { server, url } = await serveWith(deliveryFaults.abortAfterFrames(1));
    await readUntilError(await streamChat(url));
    const attempt = await server.waitForAttempt(1);
    await attempt.settled;
    await expect(attempt.stream.sent(5)).rejects.toThrow(
      'attempt 1 ended (server-aborted) after 1 of 5 frames',
    );
    await expect(attempt.stream.stalled()).rejects.toThrow('without stalling');
  });

  it('a client abort mid-stream is "client-aborted"', async () => {
    // One frame far larger than the socket buffers: the server is still writing it when the
    // client walks away, so the abort lands mid-stream without any timing.
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('big').responds(`start ${'x'.repeat(16 * 1024 * 1024)}`);
    });
    const { url } = await running.start(server);
    const abort = new AbortController();
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([{ role: 'user', content: 'hi' }], { stream: true }),
      { signal: abort.signal },
    );
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.sent(2);
    const reader = response.body?.getReader();
    await reader?.read();
    abort.abort();
    expect(await attempt.settled).toBe('client-aborted');
    expect(attempt.framesSent).toBeLessThan(5);
  });
});

describe('close()', () => {
  it('leaves no open handles, even with a stalled stream in flight', async () => {
    const count = (): number =>
      process
        .getActiveResourcesInfo()
        .filter((name) => name === 'TCPServerWrap').length;
    const before = count();
    const { server, url } = await serveWith(deliveryFaults.stallAfterFrames(1));
    expect(count()).toBe(before + 1);
    const response = await streamChat(url);
    const attempt = await server.waitForAttempt(1);
    await attempt.stream.stalled();
    const reading = readUntilError(response);
    await running.close();
    await reading;
    expect(count()).toBe(before);
    expect(attempt.outcome).toBe('stalled');
  });
});
