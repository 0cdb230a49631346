import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useStart } from './__fixtures__/serve.ts';
import { deliveryFaults } from './delivery-faults.ts';
import { LlmTestServer } from './llm-test-server.ts';

// Arguments with an escaped quote, a backslash, a multibyte character and an astral one:
// slices of 3 code units cut through all of them.
const args = { city: 'Zürich "Nord"', path: 'C:\\tmp', mood: '😀' };

const start = useStart();

describe('official openai client', () => {
  it('assembles a streamed, fragmented, parallel tool call', async () => {
    const server = new LlmTestServer({ argumentSliceLength: 3 });
    server.conversation('weather', (c) => {
      c.step('ask')
        .whenUser('weather')
        .callsTools([
          { id: 'call_1', name: 'get_weather', args },
          { id: 'call_2', name: 'get_time', args: { tz: 'Europe/Zürich' } },
        ]);
    });
    const url = await start(server);
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: `${url}/v1`,
      maxRetries: 0,
    });

    const stream = client.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'weather?' }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();

    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = choice?.message.tool_calls ?? [];
    expect(
      calls.map((call) => [
        call.id,
        call.function.name,
        JSON.parse(call.function.arguments) as unknown,
      ]),
    ).toEqual([
      ['call_1', 'get_weather', args],
      ['call_2', 'get_time', { tz: 'Europe/Zürich' }],
    ]);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    server.assertNoUnmatched();
  });

  it('maps a scripted 429 to RateLimitError, and retries it as the SDK would', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('ask')
        .whenUser('hi')
        .fails(429, 'rate_limit_exceeded', 'Slow down', {
          headers: { 'retry-after-ms': '1' },
        })
        .responds('Hello!');
    });
    const url = await start(server);
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: `${url}/v1`,
      maxRetries: 1,
    });

    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });

    expect(completion.choices[0]?.message.content).toBe('Hello!');
    expect(
      server.journal.map((entry) => [
        entry.status,
        entry.headers['x-stainless-retry-count'],
      ]),
    ).toEqual([
      [429, '0'],
      [200, '1'],
    ]);

    const noRetry = new OpenAI({
      apiKey: 'k',
      baseURL: `${url}/v1`,
      maxRetries: 0,
    });
    const error: unknown = await noRetry.chat.completions
      .create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((caught: unknown) => caught);
    // The step is spent, so this request is unmatched: a provider-shaped 400.
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('maps a 429 body and an in-stream error to APIError', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('ask')
        .whenUser('hi')
        .fails(429, 'rate_limit_exceeded', 'Slow down', {
          headers: { 'x-should-retry': 'false' },
        })
        .deliversWith(
          deliveryFaults.inStreamError(1, {
            code: 'server_error',
            message: 'boom',
          }),
        )
        .responds('Hello!');
    });
    const url = await start(server);
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: `${url}/v1`,
      maxRetries: 2,
    });
    const request = {
      model: 'gpt-test',
      messages: [{ role: 'user' as const, content: 'hi' }],
    };

    const rateLimited: unknown = await client.chat.completions
      .create(request)
      .catch((caught: unknown) => caught);
    expect(rateLimited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(rateLimited).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      requestID: 'req_1',
    });
    // x-should-retry: false stopped the SDK from retrying.
    expect(server.journal).toHaveLength(1);

    const inStream: unknown = await (async () => {
      const stream = await client.chat.completions.create({
        ...request,
        stream: true,
      });
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((caught: unknown) => caught);
    expect(inStream).toBeInstanceOf(OpenAI.APIError);
    expect(inStream).toMatchObject({ status: undefined, message: 'boom' });
  });
});

describe('official anthropic client', () => {
  it('assembles a streamed tool_use from fragmented input_json_delta', async () => {
    const server = new LlmTestServer({ argumentSliceLength: 3 });
    server.conversation('weather', (c) => {
      c.step('ask')
        .whenUser('weather')
        .responds('Let me check.')
        .callsTools([{ id: 'toolu_1', name: 'get_weather', args }]);
    });
    const url = await start(server);
    const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });

    const message = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'weather?' }],
      })
      .finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Let me check.' }),
      expect.objectContaining({
        type: 'tool_use',
        id: 'toolu_1',
        name: 'get_weather',
        input: args,
      }),
    ]);
    server.assertNoUnmatched();
  });

  it('maps a 529 to an overloaded APIError and an in-stream error event', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('ask')
        .whenUser('hi')
        .fails(529, 'overloaded_error', 'Overloaded')
        .deliversWith(
          deliveryFaults.inStreamError(2, {
            code: 'overloaded_error',
            message: 'Overloaded',
          }),
        )
        .responds('Hello!');
    });
    const url = await start(server);
    const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    const request = {
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };

    const overloaded: unknown = await client.messages
      .create(request)
      .catch((caught: unknown) => caught);
    expect(overloaded).toBeInstanceOf(Anthropic.APIError);
    expect(overloaded).toMatchObject({
      status: 529,
      requestID: 'req_1',
      error: { type: 'error', error: { type: 'overloaded_error' } },
    });

    const inStream: unknown = await (async () => {
      const stream = await client.messages.create({ ...request, stream: true });
      for await (const _event of stream) {
        // drain
      }
    })().catch((caught: unknown) => caught);
    expect(inStream).toBeInstanceOf(Anthropic.APIError);
    expect(inStream).toMatchObject({
      status: undefined,
      error: { error: { type: 'overloaded_error' } },
    });

    const message = await client.messages.create(request);
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Hello!' }),
    ]);
  });
});

describe('official openai client, Responses', () => {
  it('assembles a streamed reasoning item, function call and usage with the Responses helper', async () => {
    const server = new LlmTestServer();
    server.conversation('weather', (c) => {
      c.step('ask')
        .whenUser('weather')
        .thinks([
          {
            type: 'thinking',
            thinking: 'Look it up.',
            signature: 'enc-AAAA-1',
          },
        ])
        .reasoningTokens(64)
        .callsTools([
          { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
        ]);
    });
    const url = await start(server);
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: `${url}/v1`,
      maxRetries: 0,
    });
    const types: string[] = [];
    const stream = client.responses.stream({
      model: 'gpt-test',
      input: 'weather in Paris?',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    stream.on('event', (event) => {
      types.push(event.type);
    });
    const response = await stream.finalResponse();
    expect(response.status).toBe('completed');
    // The helper adds `parsed_arguments` to function calls.
    expect(response.output).toMatchObject([
      {
        id: 'rs_1_0',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Look it up.' }],
        encrypted_content: 'enc-AAAA-1',
      },
      {
        id: 'fc_1_0',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
    ]);
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(64);
    // output_tokens include the reasoning tokens.
    expect(response.usage?.output_tokens).toBe(64 + 4);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      // 'Look ', 'it ', 'up.'
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });
});
