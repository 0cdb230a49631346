import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { useServer } from './__fixtures__/serve.ts';
import {
  anthropicChat,
  anthropicHeaders,
  dataOf,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';
import type { LlmTestServer } from './llm-test-server.ts';
import type { ScriptedReasoning } from './scripted-reply.ts';

const serve = useServer();
const headers = { headers: anthropicHeaders };
const thinking = { type: 'enabled', budget_tokens: 1024 } as const;

const blocks: readonly ScriptedReasoning[] = [
  { type: 'thinking', thinking: 'Paris first.', signature: 'sig-A' },
  { type: 'redacted_thinking', data: 'opaque-B' },
  // Shown with its text omitted: no thinking text, still a signature to replay.
  { type: 'thinking', thinking: '', signature: 'sig-C' },
];

const wireBlocks = [
  { type: 'thinking', thinking: 'Paris first.', signature: 'sig-A' },
  { type: 'redacted_thinking', data: 'opaque-B' },
  { type: 'thinking', thinking: '', signature: 'sig-C' },
];

const toolUse = {
  type: 'tool_use',
  id: 'toolu_1',
  name: 'get_weather',
  input: { city: 'Paris' },
};

function weather(server: LlmTestServer): void {
  server.conversation('weather', (c) => {
    c.step('ask')
      .whenUser('weather')
      .thinks(blocks)
      .reasoningTokens(500)
      .callsTools([
        { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } },
      ]);
    c.step('answer')
      .whenToolResult('get_weather', 'toolu_1', 'ok')
      .responds('Sunny.')
      .complete();
  });
}

/** The second request of the loop, with the assistant turn as the client replays it. */
function followUp(assistantContent: readonly unknown[]): unknown {
  return anthropicChat(
    [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: assistantContent },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
        ],
      },
    ],
    { max_tokens: 2048, thinking },
  );
}

const first = anthropicChat([{ role: 'user', content: 'weather in Paris?' }], {
  max_tokens: 2048,
  thinking,
});

describe('Anthropic extended thinking', () => {
  it('sends thinking, redacted and omitted blocks before the tool_use, with thinking tokens in output_tokens', async () => {
    const { url } = await serve(weather);
    const response = await post(`${url}/v1/messages`, first, headers);
    const body = (await response.json()) as {
      content: unknown[];
      usage: { output_tokens: number };
    };
    expect(body.content).toEqual([...wireBlocks, toolUse]);
    // 500 thinking tokens plus the estimate for '{"city":"Paris"}' (16 chars, 4 tokens).
    expect(body.usage.output_tokens).toBe(504);
  });

  it('streams thinking_delta then signature_delta, and redacted data in content_block_start', async () => {
    const { url } = await serve(weather);
    const response = await post(
      `${url}/v1/messages`,
      { ...first, stream: true },
      headers,
    );
    const events = dataOf(await readEvents(response)) as {
      type: string;
      index?: number;
      delta?: { type: string };
      content_block?: { type: string };
    }[];
    const first3 = events
      .filter((event) => (event.index ?? 99) < 3)
      .map((event) =>
        event.type === 'content_block_start'
          ? `start:${event.content_block?.type ?? ''}`
          : event.type === 'content_block_delta'
            ? (event.delta?.type ?? '')
            : event.type,
      );
    expect(first3).toEqual([
      'start:thinking',
      'thinking_delta',
      'thinking_delta',
      'signature_delta',
      'content_block_stop',
      'start:redacted_thinking',
      'content_block_stop',
      'start:thinking',
      'signature_delta',
      'content_block_stop',
    ]);
  });

  it('is assembled by the official SDK, and a client that replays it verbatim completes the loop', async () => {
    const { server, url } = await serve(weather);
    const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'weather in Paris?' }],
      })
      .finalMessage();
    expect(message.content).toEqual([...wireBlocks, toolUse]);
    expect(message.usage.output_tokens).toBe(504);

    const second = await client.messages.create({
      model: 'claude-test',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        { role: 'assistant', content: message.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          ],
        },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
    expect(server.journal.map((attempt) => attempt.step)).toEqual([
      'ask',
      'answer',
    ]);
  });

  it('answers a tool loop that drops the thinking blocks with Anthropic’s 400', async () => {
    const { server, url } = await serve(weather);
    await post(`${url}/v1/messages`, first, headers);
    const response = await post(
      `${url}/v1/messages`,
      followUp([toolUse]),
      headers,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
      },
      request_id: 'req_2',
    });
    expect(server.journal[1]?.disposition).toBe('rejected');
  });

  it.each([
    [
      'an edited signature',
      [{ ...wireBlocks[0], signature: 'forged' }, ...wireBlocks.slice(1)],
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ],
    [
      'edited thinking text',
      [{ ...wireBlocks[0], thinking: 'Rome.' }, ...wireBlocks.slice(1)],
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ],
    [
      'a dropped redacted block',
      [wireBlocks[0], wireBlocks[2]],
      'messages.1.content.1: Invalid `signature` in `thinking` block',
    ],
    [
      'the omitted block left out',
      wireBlocks.slice(0, 2),
      'messages.1.content.2: Invalid `signature` in `thinking` block',
    ],
  ])('answers %s with Anthropic’s 400', async (_name, replayed, message) => {
    const { url } = await serve(weather);
    await post(`${url}/v1/messages`, first, headers);
    const response = await post(
      `${url}/v1/messages`,
      followUp([...replayed, toolUse]),
      headers,
    );
    expect(response.status).toBe(400);
    expect(
      ((await response.json()) as { error: { message: string } }).error.message,
    ).toBe(message);
  });

  it('accepts the replay without thinking checks when strict is off', async () => {
    const { url } = await serve(weather, { strict: false });
    await post(`${url}/v1/messages`, first, headers);
    const response = await post(
      `${url}/v1/messages`,
      followUp([toolUse]),
      headers,
    );
    expect(response.status).toBe(200);
  });

  it('rejects a thinking block in a final assistant message when thinking is off', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('any').responds('never');
      }),
    );
    const response = await post(
      `${url}/v1/messages`,
      anthropicChat([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [wireBlocks[0]] },
      ]),
      headers,
    );
    expect(response.status).toBe(400);
    expect(
      ((await response.json()) as { error: { message: string } }).error.message,
    ).toBe(
      'messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.',
    );
  });
});

describe('Anthropic thinking parameter', () => {
  it.each([
    [{ type: 'adaptive' }, 200, undefined],
    [{ type: 'disabled' }, 200, undefined],
    [{ type: 'enabled', budget_tokens: 1024 }, 200, undefined],
    [
      { type: 'enabled', budget_tokens: 4096 },
      400,
      '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
    ],
    [
      { type: 'enabled', budget_tokens: 512 },
      400,
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    ],
    [
      { type: 'enabled' },
      400,
      'thinking.enabled.budget_tokens: Field required',
    ],
    [
      { type: 'on' },
      400,
      "thinking: Input tag 'on' found using 'type' does not match any of the expected tags: 'disabled', 'enabled', 'adaptive'",
    ],
  ])('%j → %i', async (param, status, message) => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('any').responds('ok');
      }),
    );
    const response = await post(
      `${url}/v1/messages`,
      anthropicChat([{ role: 'user', content: 'hi' }], {
        max_tokens: 2048,
        thinking: param,
      }),
      headers,
    );
    expect(response.status).toBe(status);
    if (message !== undefined) {
      expect(
        ((await response.json()) as { error: { message: string } }).error
          .message,
      ).toBe(message);
    }
  });
});

describe('thinks()', () => {
  it('throws a ScriptError naming the step for a block without its signature', async () => {
    await expect(
      serve((server) =>
        server.conversation('c', (c) => {
          c.step('s').thinks([
            { type: 'thinking', thinking: 'x', signature: '' },
          ]);
        }),
      ),
    ).rejects.toThrow(/thinks needs/);
  });
});
