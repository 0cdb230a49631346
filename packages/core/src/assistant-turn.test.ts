import { describe, expect, it } from 'vitest';
import { AssistantTurn, assistantParts } from './assistant-turn.ts';

describe('AssistantTurn', () => {
  it('keeps reasoning, text and tool calls in order, each with its provider data', () => {
    const turn = new AssistantTurn();
    turn.add({ type: 'reasoning-delta', text: 'Let me ' });
    turn.add({ type: 'reasoning-delta', text: 'think.' });
    turn.add({
      type: 'reasoning-end',
      providerData: { anthropic: { signature: 'sig-1' } },
    });
    turn.add({
      type: 'reasoning-end',
      redacted: true,
      providerData: { anthropic: { data: 'opaque' } },
    });
    turn.add({ type: 'text-delta', text: 'Adding.' });
    turn.add({
      type: 'tool-call',
      call: {
        id: 'c1',
        name: 'add',
        arguments: '{}',
        providerData: { google: { thoughtSignature: 'g1' } },
      },
    });
    turn.add({ type: 'text-delta', text: 'Done' });
    turn.add({
      type: 'text-end',
      providerData: { google: { thoughtSignature: 'g2' } },
    });
    expect(turn.text).toBe('Adding.Done');
    expect(turn.calls.map((call) => call.id)).toEqual(['c1']);
    const parts = turn.finishedParts();
    expect(parts).toEqual([
      {
        type: 'reasoning',
        text: 'Let me think.',
        providerData: { anthropic: { signature: 'sig-1' } },
      },
      {
        type: 'reasoning',
        text: '',
        redacted: true,
        providerData: { anthropic: { data: 'opaque' } },
      },
      { type: 'text', text: 'Adding.' },
      {
        type: 'tool-call',
        call: {
          id: 'c1',
          name: 'add',
          arguments: '{}',
          providerData: { google: { thoughtSignature: 'g1' } },
        },
      },
      {
        type: 'text',
        text: 'Done',
        providerData: { google: { thoughtSignature: 'g2' } },
      },
    ]);
    // A saved conversation is plain JSON: it comes back equal.
    expect(JSON.parse(JSON.stringify(parts))).toEqual(parts);
  });

  it('closes an open part when the other kind starts, without -end events', () => {
    const turn = new AssistantTurn();
    turn.add({ type: 'text-delta', text: 'a' });
    turn.add({ type: 'reasoning-delta', text: 'b' });
    turn.add({ type: 'text-delta', text: 'c' });
    expect(turn.finishedParts()).toEqual([
      { type: 'text', text: 'a' },
      { type: 'reasoning', text: 'b' },
      { type: 'text', text: 'c' },
    ]);
  });

  it('puts the censored calls in the parts when given', () => {
    const turn = new AssistantTurn();
    turn.add({
      type: 'tool-call',
      call: { id: 'c1', name: 'login', arguments: '{"password":"x"}' },
    });
    const censored = [
      { id: 'c1', name: 'login', arguments: '{"password":"[REDACTED]"}' },
    ];
    expect(turn.finishedParts(censored)).toEqual([
      { type: 'tool-call', call: censored[0] },
    ]);
  });
});

describe('assistantParts', () => {
  it('reads a message without parts as its text, then its tool calls', () => {
    const call = { id: 'c1', name: 'add', arguments: '{}' };
    expect(
      assistantParts({ role: 'assistant', content: 'Hi', toolCalls: [call] }),
    ).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'tool-call', call },
    ]);
    expect(
      assistantParts({ role: 'assistant', content: '', toolCalls: [] }),
    ).toEqual([]);
  });
});
