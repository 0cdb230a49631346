import { describe, expect, it } from 'vitest';
import * as main from './index.ts';
import * as testing from './testing.ts';

describe('@candor/core/testing', () => {
  it('exports the test doubles, and the main entry keeps the very same values for one minor', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'lastToolResult',
      'scriptedModel',
    ]);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the alias under test
    expect(main.scriptedModel).toBe(testing.scriptedModel);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the alias under test
    expect(main.lastToolResult).toBe(testing.lastToolResult);
  });

  it('gives a scripted model that the deprecated types still describe', async () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the alias under test
    const step: main.ScriptedStep = { text: 'Hi.' };
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
