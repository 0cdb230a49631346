import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  anthropicChat,
  anthropicHeaders,
  dataOf,
  openAiChat,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';
import type { ToolResultKind } from './classify-tool-result.ts';
import { LlmTestServer, type RunningLlmTestServer } from './llm-test-server.ts';
import { ScriptError } from './script-error.ts';
import {
  toolFaultFixtures,
  type ToolResultFixture,
} from './tool-fault-fixtures.ts';

let running: RunningLlmTestServer | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await running?.close();
  running = undefined;
});

async function start(server: LlmTestServer): Promise<string> {
  running = await server.start();
  return running.url;
}

function chat(
  url: string,
  messages: readonly unknown[],
  signal?: AbortSignal,
): Promise<Response> {
  return post(
    `${url}/v1/chat/completions`,
    openAiChat(messages),
    signal === undefined ? {} : { signal },
  );
}

async function contentOf(response: Response): Promise<unknown> {
  const body = (await response.json()) as {
    choices?: { message?: { content?: unknown } }[];
  };
  return body.choices?.[0]?.message?.content;
}

const user = (content: string): unknown => ({ role: 'user', content });

const assistantCalls = (
  ...calls: readonly (readonly [string, string])[]
): unknown => ({
  role: 'assistant',
  content: null,
  tool_calls: calls.map(([id, name]) => ({
    id,
    type: 'function',
    function: { name, arguments: '{}' },
  })),
});

describe('matchers', () => {
  it('whenUser matches text or a RegExp on the latest user turn only', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('regex')
        .whenUser(/^weather in \w+$/i)
        .responds('regex');
      c.step('text').whenUser('hello').responds('text');
    });
    const url = await start(server);
    expect(await contentOf(await chat(url, [user('Weather in Paris')]))).toBe(
      'regex',
    );
    expect(await contentOf(await chat(url, [user('well, hello')]))).toBe(
      'text',
    );
    // After a tool result the user turn is no longer the latest, so whenUser does not match.
    const afterTool = await chat(url, [
      user('hello'),
      assistantCalls(['call_1', 'f']),
      { role: 'tool', tool_call_id: 'call_1', content: 'x' },
    ]);
    expect(afterTool.status).toBe(400);
    expect(server.journal.map((entry) => entry.step)).toEqual([
      'regex',
      'text',
      undefined,
    ]);
  });

  it('whenToolResult tells ok, null, empty, missing, error, denied and partial apart (OpenAI)', async () => {
    const kinds: readonly ToolResultKind[] = [
      'ok',
      'null',
      'empty',
      'missing',
      'error',
      'denied',
      'partial',
    ];
    const server = new LlmTestServer({ strict: false });
    server.conversation('kinds', (c) => {
      for (const kind of kinds) {
        c.step(kind).whenToolResult('lookup', 'call_1', kind).responds(kind);
      }
    });
    const url = await start(server);
    const fixtures: Record<ToolResultKind, ToolResultFixture> = {
      ok: toolFaultFixtures.ok('call_1', { rows: 3 }),
      null: toolFaultFixtures.nullResult('call_1'),
      empty: toolFaultFixtures.emptyResult('call_1'),
      missing: toolFaultFixtures.omittedResult('call_1'),
      error: toolFaultFixtures.failure('call_1', {
        code: 'timeout',
        message: 'slow',
        retryable: true,
      }),
      denied: {
        callId: 'call_1',
        kind: 'denied',
        content:
          '[DENIED] This call was NOT executed. Refused by policy. Do not retry it unless the user asks.',
      },
      partial: {
        callId: 'call_1',
        kind: 'partial',
        content:
          '[INCOMPLETE RESULT: result_truncated] This result is incomplete; do not present it as complete.\nrow 1',
      },
    };
    // Reverse order, so a match cannot be explained by step order.
    for (const kind of [...kinds].reverse()) {
      const response = await chat(url, [
        user('look it up'),
        assistantCalls(['call_1', 'lookup'], ['call_x', 'other']),
        { role: 'tool', tool_call_id: 'call_x', content: 'other result' },
        ...toolFaultFixtures.openAiMessages([fixtures[kind]]),
      ]);
      expect(await contentOf(response)).toBe(kind);
    }
    server.assertNoUnmatched();
  });

  it("reads Candor's bracketed codes on OpenAI: whenLatestCode and whenLatestText", async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('circuit').whenLatestCode('CIRCUIT_OPEN').responds('circuit');
      c.step('error')
        .whenToolResult('lookup', 'call_1', 'error')
        .whenLatestCode('NOT_FOUND')
        .whenLatestText(/No such file: (\w+)\.txt/)
        .responds('not found');
      c.step('text').whenLatestText('[INFO]').responds('plain');
    });
    const url = await start(server);
    const ask = async (content: string): Promise<unknown> =>
      contentOf(
        await chat(url, [
          user('look it up'),
          assistantCalls(['call_1', 'lookup']),
          { role: 'tool', tool_call_id: 'call_1', content },
        ]),
      );
    // A bracket that is no Candor code is ordinary output, not an error.
    expect(await ask('[INFO] build ok')).toBe('plain');
    expect(
      await ask(
        '[NOT_FOUND] No such file: notes.txt\nRetrying the same call will not help.',
      ),
    ).toBe('not found');
    expect(
      await ask('[CIRCUIT_OPEN] The tool "lookup" is unavailable for now.'),
    ).toBe('circuit');
    server.assertNoUnmatched();
  });

  it('whenLatestCode reads the envelope code and Anthropic text blocks', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('timeout').whenLatestCode('timeout').responds('timeout');
      c.step('denied')
        .whenToolResult('f', 'toolu_1', 'denied')
        .whenLatestText(/NOT executed/)
        .responds('denied');
    });
    const url = await start(server);
    const ask = async (fixture: ToolResultFixture): Promise<unknown> => {
      const response = await post(
        `${url}/v1/messages`,
        anthropicChat([
          user('go'),
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
            ],
          },
          toolFaultFixtures.anthropicMessage([fixture]),
        ]),
        { headers: anthropicHeaders },
      );
      const body = (await response.json()) as { content: { text: string }[] };
      return body.content[0]?.text;
    };
    expect(
      await ask({
        callId: 'toolu_1',
        kind: 'denied',
        content: '[DENIED] This call was NOT executed. No.',
      }),
    ).toBe('denied');
    expect(
      await ask(
        toolFaultFixtures.failure('toolu_1', {
          code: 'timeout',
          message: 'slow',
          retryable: true,
        }),
      ),
    ).toBe('timeout');
  });

  it('whenToolResult needs the tool name and call id of the latest assistant turn', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('ok').whenToolResult('lookup', 'call_1', 'ok').responds('ok');
    });
    const url = await start(server);
    const wrongName = await chat(url, [
      user('go'),
      assistantCalls(['call_1', 'search']),
      { role: 'tool', tool_call_id: 'call_1', content: 'x' },
    ]);
    expect(wrongName.status).toBe(400);
    expect(server.journal[0]?.disposition).toBe('unmatched');
  });

  it('whenToolResult reads Anthropic is_error and omitted content', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('error').whenToolResult('f', 'toolu_1', 'error').responds('error');
      c.step('null').whenToolResult('f', 'toolu_1', 'null').responds('null');
    });
    const url = await start(server);
    const ask = async (fixture: ToolResultFixture): Promise<unknown> => {
      const response = await post(
        `${url}/v1/messages`,
        anthropicChat([
          user('go'),
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
            ],
          },
          toolFaultFixtures.anthropicMessage([fixture]),
        ]),
        { headers: anthropicHeaders },
      );
      const body = (await response.json()) as { content: { text: string }[] };
      return body.content[0]?.text;
    };
    expect(await ask(toolFaultFixtures.nullResult('toolu_1'))).toBe('null');
    expect(
      await ask(
        toolFaultFixtures.failure('toolu_1', {
          code: 'denied',
          message: 'no',
          retryable: false,
        }),
      ),
    ).toBe('error');
  });

  it('whenLatestJson branches on a JSON path of the latest tool result', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('retry')
        .whenLatestJson('$.error.retryable', true)
        .responds('retry');
      c.step('fatal')
        .whenLatestJson("$['error']['retryable']", false)
        .responds('fatal');
      c.step('second')
        .whenLatestJson('$.items[1].id', { n: 2 })
        .responds('second');
    });
    const url = await start(server);
    const withResult = (content: string): unknown[] => [
      user('go'),
      assistantCalls(['call_1', 'f']),
      { role: 'tool', tool_call_id: 'call_1', content },
    ];
    const envelope = (retryable: boolean): string =>
      JSON.stringify({ error: { code: 'x', message: 'y', retryable } });
    expect(await contentOf(await chat(url, withResult(envelope(false))))).toBe(
      'fatal',
    );
    expect(await contentOf(await chat(url, withResult(envelope(true))))).toBe(
      'retry',
    );
    expect(
      await contentOf(
        await chat(
          url,
          withResult(JSON.stringify({ items: [{ id: 1 }, { id: { n: 2 } }] })),
        ),
      ),
    ).toBe('second');
    expect((await chat(url, withResult('not json'))).status).toBe(400);
  });

  it('complete() closes the conversation after its step succeeds', async () => {
    const server = new LlmTestServer();
    const handle = server.conversation('c', (c) => {
      c.step('done').whenUser('finish').responds('Finished.').complete();
      c.step('after').whenUser('more').responds('more');
    });
    const url = await start(server);
    expect(handle.completed).toBe(false);
    expect(await contentOf(await chat(url, [user('finish')]))).toBe(
      'Finished.',
    );
    expect(handle.completed).toBe(true);
    expect((await chat(url, [user('more')])).status).toBe(400);
  });

  it('a step answers once; the same request again is unmatched', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('once').whenUser('hi').responds('hello');
    });
    const url = await start(server);
    expect((await chat(url, [user('hi')])).status).toBe(200);
    expect((await chat(url, [user('hi')])).status).toBe(400);
  });
});

describe('unmatched requests', () => {
  it('get a provider-shaped 400, a journal entry, and fail assertNoUnmatched()', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('a').whenUser('expected').responds('ok');
    });
    const url = await start(server);
    expect(() => {
      server.assertNoUnmatched();
    }).not.toThrow();
    const openAi = await chat(url, [user('surprise')]);
    expect(openAi.status).toBe(400);
    expect(await openAi.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining('no scripted step matches') as string,
      },
    });
    const anthropic = await post(
      `${url}/v1/messages`,
      anthropicChat([user('surprise')]),
      {
        headers: anthropicHeaders,
      },
    );
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    expect(server.journal.map((entry) => entry.disposition)).toEqual([
      'unmatched',
      'unmatched',
    ]);
    expect(() => {
      server.assertNoUnmatched();
    }).toThrow(
      /2 request\(s\) matched no scripted step:\n {2}#1 POST \/v1\/chat\/completions: .*"surprise"/,
    );
  });
});

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
