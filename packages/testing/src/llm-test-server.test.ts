import { describe, expect, it } from 'vitest';
import { useStart } from './__fixtures__/serve.ts';
import {
  anthropicChat,
  anthropicHeaders,
  assistantCalls,
  chat,
  contentOf,
  post,
  user,
} from './__fixtures__/wire-client.ts';
import type { ToolResultKind } from './classify-tool-result.ts';
import { LlmTestServer } from './llm-test-server.ts';
import {
  toolFaultFixtures,
  type ToolResultFixture,
} from './tool-fault-fixtures.ts';

const start = useStart();

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
