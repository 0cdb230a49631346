import { deliveryFaults } from '@candor/testing';
import { expect, it } from 'vitest';
import { Agent } from '../agent.ts';
import { type WireUnderTest } from './wire-conformance.case.ts';
import { calculatorRegistry, setup } from './wire-conformance-setup.case.ts';

/** The retry rule and the stream's ends, over one wire: called inside its conformance suite. */
export function runDeliveryConformance(wire: WireUnderTest): void {
  it('retries an overload before any chunk, waiting the capped retry-after', async () => {
    const waits: number[] = [];
    const { model, server } = await setup(
      wire,
      (c) => {
        c.step('answer')
          .fails(
            wire.overloaded.status,
            wire.overloaded.code,
            wire.overloaded.message,
            { headers: { 'retry-after': '120' } },
          )
          .responds('Fine now.')
          .complete();
      },
      {
        maxRetryDelayMs: 2000,
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    );
    const result = await new Agent({
      model,
      registry: calculatorRegistry().registry,
    }).run('hello');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Fine now.');
    expect(waits).toEqual([2000]);
    expect(server.journal.map((attempt) => attempt.status)).toEqual([
      wire.overloaded.status,
      200,
    ]);
  });

  it('does not retry a 400, and reports the provider’s message', async () => {
    const { model, server } = await setup(wire, (c) => {
      c.step('answer')
        .fails(400, wire.badRequestCode, 'max_tokens is too large')
        .responds('never');
    });
    const result = await new Agent({
      model,
      registry: calculatorRegistry().registry,
    }).run('hello');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.status).toBe(400);
    expect(result.modelError?.message).toContain('max_tokens is too large');
    expect(server.journal).toHaveLength(1);
  });

  it('retries a stream that breaks before its first content chunk', async () => {
    const waits: number[] = [];
    const { model, server } = await setup(
      wire,
      (c) => {
        c.step('answer')
          .deliversWith(
            deliveryFaults.abortAfterFrames(wire.framesBeforeContent),
          )
          .responds('Recovered.')
          .complete();
      },
      { sleep: async (ms) => void waits.push(ms), random: () => 0 },
    );
    const result = await new Agent({
      model,
      registry: calculatorRegistry().registry,
    }).run('hello');
    expect(result.text).toBe('Recovered.');
    expect(waits).toEqual([500]);
    expect(server.journal).toHaveLength(2);
  });

  it('never retries after the first chunk: an abort there is a model_error', async () => {
    const framesThroughFirstText = wire.framesThroughFirstText;
    const { model, server } = await setup(
      wire,
      (c) => {
        c.step('answer')
          .deliversWith(deliveryFaults.abortAfterFrames(framesThroughFirstText))
          .responds('This answer is long enough to come in several pieces.');
      },
      { sleep: async () => undefined },
    );
    const deltas: string[] = [];
    let result;
    for await (const event of new Agent({
      model,
      registry: calculatorRegistry().registry,
    }).stream('hello')) {
      if (event.type === 'text-delta') deltas.push(event.text);
      if (event.type === 'done') result = event.result;
    }
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(result?.stopReason).toBe('model_error');
    expect(server.journal).toHaveLength(1);
  });

  it('treats a stream without its terminal frame as incomplete, and never runs its half tool call', async () => {
    const { model, server } = await setup(
      wire,
      (c) => {
        c.step('ask')
          .deliversWith(deliveryFaults.noTerminalFrame())
          .callsTools([{ id: 'call_x', name: 'calc', args: { a: 1, b: 2 } }]);
      },
      { sleep: async () => undefined },
    );
    const { registry, runs } = calculatorRegistry();
    const result = await new Agent({ model, registry }).run('add');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.kind).toBe('incomplete');
    expect(runs()).toBe(0);
    expect(server.journal).toHaveLength(1);
  });
}
