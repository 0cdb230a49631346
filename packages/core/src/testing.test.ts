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

  it('plays a step on the first next(), hands out its events in order, then ends', async () => {
    const model = testing.scriptedModel([
      { text: 'Adding.', toolCalls: [{ name: 'add', arguments: { a: 1 } }] },
      { text: 'Done.' },
    ]);
    const stream = model.stream({ messages: [], tools: [] });
    const iterator = stream[Symbol.asyncIterator]();
    // Nothing is consumed before the first next(), as with a generator.
    expect(model.requests).toHaveLength(0);
    expect(await iterator.next()).toEqual({
      done: false,
      value: { type: 'text-delta', text: 'Adding.' },
    });
    expect(model.requests).toHaveLength(1);
    expect((await iterator.next()).value).toEqual({
      type: 'tool-call',
      call: { id: 'call_1', name: 'add', arguments: '{"a":1}' },
    });
    expect((await iterator.next()).value).toEqual({
      type: 'finish',
      finishReason: 'tool_calls',
    });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('rejects once after the events a throwing step made, and a stream left early consumes no step', async () => {
    const model = testing.scriptedModel([
      () => {
        throw new Error('script bug');
      },
      { text: 'second' },
    ]);
    const abandoned = model.stream({ messages: [], tools: [] });
    await abandoned[Symbol.asyncIterator]().return?.();
    const failing = model.stream({ messages: [], tools: [] });
    const iterator = failing[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow('script bug');
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const events = [];
    for await (const event of model.stream({ messages: [], tools: [] })) {
      events.push(event);
    }
    expect(events[0]).toEqual({ type: 'text-delta', text: 'second' });
    await expect(async () => {
      for await (const event of model.stream({ messages: [], tools: [] })) {
        events.push(event);
      }
    }).rejects.toThrow('The scripted model has no step 3');
  });

  it('plays one step per stream, however often the stream is iterated, as a generator would', async () => {
    const model = testing.scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const stream = model.stream({ messages: [], tools: [] });
    const first = [];
    for await (const event of stream) {
      first.push(event);
      // A consumer that stops early: the step is used up, nothing more of it is handed out.
      break;
    }
    const again = [];
    for await (const event of stream) again.push(event);
    expect(first).toEqual([{ type: 'text-delta', text: 'one' }]);
    expect(again).toEqual([]);
    expect(model.requests).toHaveLength(1);
    const next = [];
    for await (const event of model.stream({ messages: [], tools: [] })) {
      next.push(event);
    }
    expect(next[0]).toEqual({ type: 'text-delta', text: 'two' });
  });

  it('gives steps in the order streams first ask, and an aborted request records itself but uses no step', async () => {
    const model = testing.scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const early = model.stream({ messages: [], tools: [] });
    const late = model.stream({ messages: [], tools: [] });
    const lateEvents = late[Symbol.asyncIterator]();
    const earlyEvents = early[Symbol.asyncIterator]();
    expect((await lateEvents.next()).value).toEqual({
      type: 'text-delta',
      text: 'one',
    });
    expect((await earlyEvents.next()).value).toEqual({
      type: 'text-delta',
      text: 'two',
    });
    const aborted = testing.scriptedModel([{ text: 'kept' }]);
    const signal = AbortSignal.abort();
    const refused = aborted.stream({ messages: [], tools: [], signal });
    await expect(refused[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      kind: 'aborted',
    });
    expect(aborted.requests).toHaveLength(1);
    const events = [];
    for await (const event of aborted.stream({ messages: [], tools: [] })) {
      events.push(event);
    }
    expect(events[0]).toEqual({ type: 'text-delta', text: 'kept' });
  });

  it('ends a stream thrown into, as a generator does, and plays no step for it', async () => {
    const model = testing.scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const stream = model.stream({ messages: [], tools: [] });
    const iterator = stream[Symbol.asyncIterator]();
    const stop = new Error('consumer gave up');
    await expect(iterator.throw?.(stop)).rejects.toBe(stop);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(model.requests).toHaveLength(0);
    const events = [];
    for await (const event of model.stream({ messages: [], tools: [] })) {
      events.push(event);
    }
    expect(events[0]).toEqual({ type: 'text-delta', text: 'one' });
  });
});
