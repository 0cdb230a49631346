import { ToolRegistry } from '@candor/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../agent.ts';
import { type ModelEvent } from '../../chat-model.ts';
import { ModelError } from '../../model-error.ts';
import { type RetryOptions } from '../../retry-policy.ts';
import { type Answer, drain, serve } from './loopback-responses-server.case.ts';
import { openaiResponses } from './openai-responses.ts';

let registry: ToolRegistry | undefined;

afterEach(() => {
  registry?.shutdown();
  registry = undefined;
});

async function streamed(
  answers: Answer[],
  retry: RetryOptions = {},
): Promise<{
  events: ModelEvent[];
  error: unknown;
  requests: number;
  waits: number[];
}> {
  const { url, requests } = await serve(answers);
  const waits: number[] = [];
  const wire = openaiResponses({
    baseURL: url,
    apiKey: 'sk-test-key-123456',
    model: 'gpt-5-mini',
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...retry,
  });
  const events: ModelEvent[] = [];
  let error: unknown;
  try {
    for await (const event of wire.stream({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
    }))
      events.push(event);
  } catch (thrown: unknown) {
    error = thrown;
  }
  return { events, error, requests: requests.length, waits };
}

function finish(events: ModelEvent[]) {
  return events.find((event) => event.type === 'finish');
}

describe('openaiResponses: how a stream ends', () => {
  it('ends a refusal with content_filter, the refusal as its text, and the run with content_filter', async () => {
    const { events } = await streamed([{ fixture: 'refusal.sse' }]);
    expect(events.slice(0, 2)).toEqual([
      { type: 'text-delta', text: "I'm sorry, but I can't help with that." },
      {
        type: 'text-end',
        providerData: {
          openai: { id: 'msg_refusal000000000000000000000003', refusal: true },
        },
      },
    ]);
    expect(finish(events)).toMatchObject({ finishReason: 'content_filter' });

    const { url, requests } = await serve([
      { fixture: 'refusal.sse' },
      { fixture: 'text.sse' },
    ]);
    registry = new ToolRegistry();
    const wire = openaiResponses({ baseURL: url, apiKey: 'k', model: 'm' });
    const result = await new Agent({ model: wire, registry }).run('bad');
    expect(result.stopReason).toBe('content_filter');
    // A refusal goes back as a refusal content part, not as the model's answer.
    await drain(wire.stream({ messages: result.messages, tools: [] }));
    expect(requests[1]?.body.input[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'refusal', refusal: "I'm sorry, but I can't help with that." },
      ],
    });
  });

  it('maps response.incomplete: max_output_tokens to length, content_filter to content_filter', async () => {
    const cut = await streamed([
      { fixture: 'incomplete-max-output-tokens.sse' },
    ]);
    expect(finish(cut.events)).toEqual({
      type: 'finish',
      finishReason: 'length',
      usage: { inputTokens: 20, outputTokens: 16, reasoningTokens: 12 },
      response: { id: 'resp_04incomplete', model: 'gpt-5-mini-2025-08-07' },
    });
    const filtered = await streamed([
      { fixture: 'incomplete-content-filter.sse' },
    ]);
    expect(finish(filtered.events)).toMatchObject({
      finishReason: 'content_filter',
    });
  });

  it('throws incomplete for a function call cut off by max_output_tokens, never running half a call', async () => {
    const { events, error } = await streamed([
      { fixture: 'call-cut-by-max-output-tokens.sse' },
    ]);
    expect(events).toEqual([]);
    expect(error).toMatchObject({
      kind: 'incomplete',
      message:
        'The model stream ended a function call before its arguments were complete: the answer is incomplete.',
    });
  });

  it('throws response.failed as a stream error with the provider code and message', async () => {
    const { error, requests } = await streamed([{ fixture: 'failed.sse' }], {
      maxRetries: 0,
    });
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      kind: 'stream',
      message:
        'The model stream reported response.failed server_error: The server had an error while processing your request.',
    });
    expect(requests).toBe(1);
  });

  it('retries a failure reported before the first chunk, like any other wire', async () => {
    const { events, requests, waits } = await streamed(
      [{ fixture: 'failed.sse' }, { fixture: 'text.sse' }],
      { random: () => 0 },
    );
    expect(requests).toBe(2);
    expect(waits).toEqual([500]);
    expect(finish(events)).toMatchObject({ finishReason: 'stop' });
  });

  it('throws an in-stream error event as a stream error with its code, and never retries after text', async () => {
    const { error } = await streamed([{ fixture: 'error-event.sse' }], {
      maxRetries: 0,
    });
    expect(error).toMatchObject({
      kind: 'stream',
      message:
        'The model stream reported error rate_limit_exceeded: Rate limit reached for requests.',
    });
    expect((error as ModelError).cause).toMatchObject({
      type: 'error',
      code: 'rate_limit_exceeded',
    });
    const late = await streamed([
      { fixture: 'text-then-error.sse' },
      { fixture: 'text.sse' },
    ]);
    expect(late.events).toEqual([
      { type: 'text-delta', text: 'The weather in' },
    ]);
    expect(late.error).toMatchObject({
      kind: 'stream',
      attempts: 1,
      message:
        'The model stream reported error server_error: The server had an error.',
    });
    expect(late.requests).toBe(1);
  });

  it('throws incomplete for a stream without its terminal event, and never retries after the first chunk', async () => {
    const { events, error, requests } = await streamed([
      { fixture: 'cut-before-completed.sse' },
      { fixture: 'text.sse' },
    ]);
    expect(events).toEqual([{ type: 'text-delta', text: 'The weather in' }]);
    expect(error).toMatchObject({ kind: 'incomplete', attempts: 1 });
    expect(requests).toBe(1);
  });

  it('retries a 429 before the first chunk, waiting its Retry-After capped by maxRetryDelayMs', async () => {
    const { events, requests, waits } = await streamed(
      [
        {
          status: 429,
          headers: { 'retry-after': '30' },
          body: {
            error: {
              message: 'Rate limit reached',
              type: 'requests',
              code: 'rate_limit_exceeded',
            },
          },
        },
        {
          status: 500,
          body: { error: { message: 'boom', type: 'server_error' } },
        },
        { fixture: 'text.sse' },
      ],
      { maxRetryDelayMs: 2_000, random: () => 0 },
    );
    expect(requests).toBe(3);
    // 30 s asked, capped at 2 s; then backoff (500 ms × 2¹, no jitter).
    expect(waits).toEqual([2_000, 1_000]);
    expect(finish(events)).toMatchObject({ finishReason: 'stop' });
  });

  it('reports a 400 with the provider code and message, without retrying', async () => {
    const { error, requests } = await streamed([
      {
        status: 400,
        body: {
          error: {
            message:
              "Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.",
            type: 'invalid_request_error',
            param: 'input',
            code: null,
          },
        },
      },
    ]);
    expect(requests).toBe(1);
    expect(error).toMatchObject({
      kind: 'http',
      status: 400,
      message:
        "openai answered HTTP 400: invalid_request_error: Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.",
    });
  });
});
