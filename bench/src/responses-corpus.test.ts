import { openaiResponses } from '@candor/core';
import { describe, expect, it } from 'vitest';
import { responsesCorpus } from './responses-corpus.ts';

describe('responsesCorpus', () => {
  it('writes at least the size asked for, the same bytes every time', () => {
    const first = responsesCorpus(200_000);
    const second = responsesCorpus(200_000);
    expect(first.bytes).toBeGreaterThanOrEqual(200_000);
    expect(first.chunks.reduce((sum, chunk) => sum + chunk.length, 0)).toBe(
      first.bytes,
    );
    expect(
      Buffer.concat(second.chunks).equals(Buffer.concat(first.chunks)),
    ).toBe(true);
    const text = Buffer.concat(first.chunks).toString('utf8');
    expect(text.split('\n\n').filter((frame) => frame !== '')).toHaveLength(
      first.frames,
    );
  });

  it('is read by the Responses wire as the events it counts', async () => {
    const corpus = responsesCorpus(100_000);
    const real = globalThis.fetch;
    globalThis.fetch = () =>
      Promise.resolve(
        new Response(new Blob(corpus.chunks.map((chunk) => chunk.slice())), {
          headers: { 'content-type': 'text/event-stream' },
        }),
      );
    const seen: Record<string, number> = {};
    try {
      const model = openaiResponses({
        apiKey: 'bench',
        model: 'gpt-5-mini',
        baseURL: 'http://bench.invalid/v1',
        maxRetries: 0,
      });
      for await (const event of model.stream({ messages: [], tools: [] }))
        seen[event.type] = (seen[event.type] ?? 0) + 1;
    } finally {
      globalThis.fetch = real;
    }
    expect(seen).toEqual({
      'reasoning-delta': corpus.reasoningDeltas,
      'reasoning-end': 1,
      'text-delta': corpus.textDeltas,
      'text-end': corpus.calls,
      'tool-call': corpus.calls,
      finish: 1,
    });
  });
});
