import { describe, expect, it } from 'vitest';
import { type ModelEvent } from './chat-model.ts';
import {
  contentPartEvents,
  type ContentStreamPart,
} from './content-part-stream.ts';

async function events(parts: ContentStreamPart[]): Promise<ModelEvent[]> {
  async function* stream() {
    yield* parts;
  }
  const seen: ModelEvent[] = [];
  for await (const event of contentPartEvents(stream(), { committed: false }))
    seen.push(event);
  return seen;
}

describe('contentPartEvents', () => {
  it('keeps reasoning and each part’s providerMetadata, gathered from start, deltas and end', async () => {
    // The shapes the AI SDK's Anthropic and Google providers stream (v3).
    expect(
      await events([
        {
          type: 'reasoning-start',
          id: 'r1',
          providerMetadata: { anthropic: { redactedData: 'opaque' } },
        },
        { type: 'reasoning-end', id: 'r1' },
        { type: 'reasoning-start', id: 'r2' },
        { type: 'reasoning-delta', id: 'r2', delta: 'Think.' },
        {
          type: 'reasoning-delta',
          id: 'r2',
          delta: '',
          providerMetadata: { anthropic: { signature: 'sig' } },
        },
        { type: 'reasoning-end', id: 'r2' },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Hi' },
        { type: 'text-end', id: 't1' },
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'calc',
          input: '{"a":1}',
          providerMetadata: { google: { thoughtSignature: 'g-sig' } },
        },
        {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: 'STOP' },
          usage: {
            inputTokens: { total: 5 },
            outputTokens: { total: 30, text: 10, reasoning: 20 },
          },
        },
      ]),
    ).toEqual([
      {
        type: 'reasoning-end',
        providerData: { aiSdk: { anthropic: { redactedData: 'opaque' } } },
      },
      { type: 'reasoning-delta', text: 'Think.' },
      {
        type: 'reasoning-end',
        providerData: { aiSdk: { anthropic: { signature: 'sig' } } },
      },
      { type: 'text-delta', text: 'Hi' },
      {
        type: 'tool-call',
        call: {
          id: 'c1',
          name: 'calc',
          arguments: '{"a":1}',
          providerData: { aiSdk: { google: { thoughtSignature: 'g-sig' } } },
        },
      },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        usage: { inputTokens: 5, outputTokens: 30, reasoningTokens: 20 },
      },
    ]);
  });

  it('reads v2 usage with reasoningTokens beside the counts', async () => {
    const seen = await events([
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 9, reasoningTokens: 4 },
      },
    ]);
    expect(seen).toEqual([
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 9, reasoningTokens: 4 },
      },
    ]);
  });
});
