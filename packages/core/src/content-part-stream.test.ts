import { describe, expect, it } from 'vitest';
import { type ModelEvent } from './chat-model.ts';
import {
  contentPartEvents,
  type ContentStreamPart,
} from './content-part-stream.ts';

async function eventsOf(
  parts: ContentStreamPart[],
): Promise<{ events: ModelEvent[]; committed: boolean }> {
  const state = { committed: false };
  const events: ModelEvent[] = [];
  async function* stream(): AsyncGenerator<ContentStreamPart> {
    yield* parts;
    await Promise.resolve();
  }
  for await (const event of contentPartEvents(stream(), state))
    events.push(event);
  return { events, committed: state.committed };
}

describe('contentPartEvents', () => {
  it("keeps each part's last providerMetadata, by part id, under aiSdk", async () => {
    const { events, committed } = await eventsOf([
      {
        type: 'text-start',
        id: 't',
        providerMetadata: { google: { thoughtSignature: 'start' } },
      },
      { type: 'reasoning-start', id: 'r' },
      { type: 'text-delta', id: 't', delta: 'Hi' },
      {
        type: 'reasoning-delta',
        id: 'r',
        delta: 'hm',
        providerMetadata: { anthropic: { signature: 's1' } },
      },
      { type: 'reasoning-end', id: 'r' },
      {
        type: 'text-end',
        id: 't',
        providerMetadata: { google: { thoughtSignature: 'end' } },
      },
      { type: 'text-end', id: 'never-started' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 5, reasoningTokens: 2 },
      },
    ]);
    expect(committed).toBe(true);
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'reasoning-delta', text: 'hm' },
      {
        type: 'reasoning-end',
        providerData: { aiSdk: { anthropic: { signature: 's1' } } },
      },
      {
        type: 'text-end',
        providerData: { aiSdk: { google: { thoughtSignature: 'end' } } },
      },
      { type: 'text-end' },
      // v2 usage: plain numbers, reasoning beside them.
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 5, reasoningTokens: 2 },
      },
    ]);
  });

  it('reads response-metadata into finish.response, keeping only what it names', async () => {
    const { events } = await eventsOf([
      { type: 'response-metadata', modelId: 'm-1' },
      { type: 'response-metadata', timestamp: new Date(0) },
      {
        type: 'tool-call',
        toolCallId: 'c',
        toolName: 'x',
        input: '{}',
        providerMetadata: {},
      },
      { type: 'finish', finishReason: { unified: 'tool-calls' } },
    ]);
    expect(events).toEqual([
      { type: 'tool-call', call: { id: 'c', name: 'x', arguments: '{}' } },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        response: { model: 'm-1' },
      },
    ]);
  });
});
