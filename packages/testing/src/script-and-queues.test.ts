import { describe, expect, it, vi } from 'vitest';
import { useStart } from './__fixtures__/serve.ts';
import {
  anthropicChat,
  anthropicHeaders,
  chat,
  contentOf,
  dataOf,
  openAiChat,
  post,
  readEvents,
  user,
} from './__fixtures__/wire-client.ts';
import { LlmTestServer } from './llm-test-server.ts';
import { ScriptError } from './script-error.ts';

const start = useStart();

describe('script mistakes', () => {
  const server = new LlmTestServer();

  it('a step with no response names the step', () => {
    expect(() =>
      server.conversation('c1', (c) => {
        c.step('ask').whenUser('x');
      }),
    ).toThrow(
      new ScriptError(
        'has no response: call responds(text) or callsTools([...])',
        {
          conversation: 'c1',
          step: 'ask',
        },
      ),
    );
  });

  it('duplicate step and conversation names are refused', () => {
    expect(() =>
      server.conversation('c2', (c) => {
        c.step('ask').responds('a').step('ask');
      }),
    ).toThrow('step "ask" of conversation "c2": duplicate step name "ask"');
    server.conversation('taken', (c) => {
      c.step('a').responds('a');
    });
    expect(() =>
      server.conversation('taken', (c) => {
        c.step('b').responds('b');
      }),
    ).toThrow('conversation "taken": duplicate conversation name');
  });

  it('a JSON path that can never match names the step', () => {
    const attempt = (path: string, value: unknown) => () =>
      server.conversation(`c-${path}`, (c) => {
        c.step('branch').whenLatestJson(path, value).responds('x');
      });
    expect(attempt('error.retryable', true)).toThrow(
      /step "branch" of conversation "c-error.retryable": whenLatestJson can never match: JSON path "error.retryable" must start with "\$"/,
    );
    expect(attempt('$.a[*]', 1)).toThrow(
      /can never match: .* not supported at position 3/,
    );
    expect(attempt('$.a', undefined)).toThrow(/not a JSON value/);
    expect(attempt('$.b', () => 1)).toThrow(ScriptError);
  });

  it('a "missing" tool-result step on a strict server can never match', () => {
    expect(() =>
      server.conversation('c3', (c) => {
        c.step('gone').whenToolResult('f', 'call_1', 'missing').responds('x');
      }),
    ).toThrow(/step "gone" .* can never match on a strict server/);
  });

  it('bad attempt-queue arguments and empty tool calls are refused', () => {
    expect(() =>
      server.conversation('c4', (c) => {
        c.step('a').fails(200, 'x', 'y');
      }),
    ).toThrow(/step "a".*HTTP error status/);
    expect(() =>
      server.conversation('c5', (c) => {
        c.step('a').delaysBy(-1);
      }),
    ).toThrow(/step "a".*delaysBy/);
    expect(() =>
      server.conversation('c6', (c) => {
        c.step('a').callsTools([]);
      }),
    ).toThrow(/step "a".*at least one tool call/);
    expect(() =>
      server.conversation('c7', (c) => {
        c.step('a').callsTools([
          { id: 'x', name: 'f', args: {} },
          { id: 'x', name: 'g', args: {} },
        ]);
      }),
    ).toThrow(/unique, non-empty id/);
    expect(() => server.conversation('c8', () => undefined)).toThrow(
      'conversation "c8": has no steps',
    );
  });
});

describe('attempt queues', () => {
  it('fails() consumes one attempt each, with its headers, then the step succeeds', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('ask')
        .whenUser('hi')
        .fails(429, 'rate_limit_exceeded', 'slow', {
          headers: { 'retry-after': '1' },
        })
        .fails(500, 'server_error', 'oops')
        .responds('hello');
    });
    const url = await start(server);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await chat(url, [user('hi')])).status);
    }
    expect(statuses).toEqual([429, 500, 200]);
    expect(
      server.journal.map((entry) => [
        entry.step,
        entry.stepAttempt,
        entry.outcome,
      ]),
    ).toEqual([
      ['ask', 1, 'completed'],
      ['ask', 2, 'completed'],
      ['ask', 3, 'completed'],
    ]);
  });

  it('delaysBy(ms) holds the response for exactly that long (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('slow').whenUser('hi').delaysBy(5_000).responds('late');
    });
    const url = await start(server);
    const pending = chat(url, [user('hi')]);
    const attempt = await server.waitForAttempt(1);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(attempt.status).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await contentOf(response)).toBe('late');
  });

  it('a delay the client cancels does not consume the attempt', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('ask')
        .whenUser('hi')
        .delaysBy(3_600_000)
        .fails(503, 'overloaded', 'busy')
        .responds('hello');
    });
    const url = await start(server);

    const abort = new AbortController();
    const cancelled = chat(url, [user('hi')], abort.signal).catch(
      (error: unknown) => error,
    );
    const first = await server.waitForAttempt(1);
    abort.abort();
    expect(await first.settled).toBe('client-aborted');
    expect(await cancelled).toBeInstanceOf(Error);
    expect(first).toMatchObject({
      consumed: false,
      stepAttempt: 1,
      status: undefined,
    });

    // The retry gets the same queued attempt, delay included; resume() cuts the delay short.
    const retry = chat(url, [user('hi')]);
    const second = await server.waitForAttempt(2);
    expect(second.stepAttempt).toBe(1);
    second.stream.resume();
    expect((await retry).status).toBe(503);
    expect(second.consumed).toBe(true);

    expect((await chat(url, [user('hi')])).status).toBe(200);
    expect(server.journal.map((entry) => entry.stepAttempt)).toEqual([1, 1, 2]);
  });

  it('a cancelled delay on the completing step does not complete the conversation', async () => {
    const server = new LlmTestServer();
    const handle = server.conversation('c', (c) => {
      c.step('end').delaysBy(3_600_000).responds('bye').complete();
    });
    const url = await start(server);
    const abort = new AbortController();
    const cancelled = chat(url, [user('x')], abort.signal).catch(
      () => 'aborted',
    );
    const attempt = await server.waitForAttempt(1);
    expect(handle.completed).toBe(true);
    abort.abort();
    await attempt.settled;
    await cancelled;
    expect(handle.completed).toBe(false);
  });
});

describe('simulateContentFilter', () => {
  it('rejects a prompt with the term with a provider-shaped content_filter 400', async () => {
    const server = new LlmTestServer();
    server.simulateContentFilter('forbidden');
    server.conversation('c', (c) => {
      c.step('a').responds('fine');
    });
    const url = await start(server);
    const openAi = await chat(url, [user('something FORBIDDEN here')]);
    expect(openAi.status).toBe(400);
    expect(await openAi.json()).toMatchObject({
      error: { code: 'content_filter', param: 'prompt', type: null },
    });
    const anthropic = await post(
      `${url}/v1/messages`,
      anthropicChat([user('forbidden')]),
      {
        headers: anthropicHeaders,
      },
    );
    expect(anthropic.status).toBe(400);
    expect(JSON.stringify(await anthropic.json())).toContain('content_filter');
    // Filtered requests do not touch the script.
    expect(await contentOf(await chat(url, [user('clean')]))).toBe('fine');
    expect(server.journal.map((entry) => entry.reason)).toEqual([
      'content-filter',
      'content-filter',
      undefined,
    ]);
  });

  it('finish_reason style answers 200 with content_filter / refusal', async () => {
    const server = new LlmTestServer();
    server.simulateContentFilter('secret', { style: 'finish_reason' });
    const url = await start(server);
    const chunks = dataOf(
      await readEvents(
        await post(
          `${url}/v1/chat/completions`,
          openAiChat([user('tell me the secret')], { stream: true }),
        ),
      ),
    ) as { choices: { finish_reason: string | null }[] }[];
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('content_filter');
    const message = await post(
      `${url}/v1/messages`,
      anthropicChat([user('secret')]),
      {
        headers: anthropicHeaders,
      },
    );
    expect(await message.json()).toMatchObject({
      stop_reason: 'refusal',
      content: [],
    });
  });
});

describe('server options', () => {
  it('logs through an injected logger and stays silent by default', async () => {
    const warnings: unknown[] = [];
    const debug: unknown[] = [];
    const server = new LlmTestServer({
      logger: {
        debug: (object) => debug.push(object),
        warn: (object, message) => warnings.push({ ...object, message }),
      },
    });
    const url = await start(server);
    await chat(url, [user('nobody expects this')]);
    expect(warnings).toEqual([
      expect.objectContaining({
        attempt: 1,
        message: 'llm test server: unmatched request',
      }),
    ]);
    expect(debug).toHaveLength(1);
  });

  it('refuses a bad argumentSliceLength and a second start()', async () => {
    expect(() => new LlmTestServer({ argumentSliceLength: 0 })).toThrow(
      RangeError,
    );
    const server = new LlmTestServer();
    await start(server);
    await expect(server.start()).rejects.toThrow('already called');
  });

  it('refuses an empty content-filter term', () => {
    expect(() => {
      new LlmTestServer().simulateContentFilter('');
    }).toThrow(RangeError);
  });
});
