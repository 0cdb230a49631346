import { describe, expect, it } from 'vitest';
import * as main from './index.ts';
import * as testing from './testing.ts';

describe('@candor/core/testing', () => {
  it('exports the test doubles, and the main entry holds none of them', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'lastToolResult',
      'scriptedModel',
    ]);
    expect(Object.keys(main)).not.toContain('scriptedModel');
    expect(Object.keys(main)).not.toContain('lastToolResult');
  });

  it('gives a scripted model that its types describe', async () => {
    const step: testing.ScriptedStep = { text: 'Hi.' };
    const model: testing.ScriptedModel = testing.scriptedModel([step]);
    const events = [];
    for await (const event of model.stream({ messages: [], tools: [] })) {
      events.push(event);
    }
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hi.' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(model.requests).toHaveLength(1);
  });
});
