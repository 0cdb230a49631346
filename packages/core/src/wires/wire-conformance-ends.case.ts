import { ToolRegistry } from '@candor/registry';
import { deliveryFaults, type ScriptedReasoning } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { type Context } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent.ts';
import { type ChatMessage } from '../chat-model.ts';
import { type WireUnderTest } from './wire-conformance.case.ts';
import { calculatorRegistry, setup } from './wire-conformance-setup.case.ts';

/** Remembers every span started and forgets it when it ends: what is left was never ended. */
export class UnendedSpans implements SpanProcessor {
  readonly #open = new Map<string, string>();
  readonly ended: string[] = [];

  /** The names of the spans started and never ended. */
  get open(): string[] {
    return [...this.#open.values()];
  }

  onStart(span: Span, _parent: Context): void {
    this.#open.set(span.spanContext().spanId, span.name);
  }

  onEnd(span: ReadableSpan): void {
    this.#open.delete(span.spanContext().spanId);
    this.ended.push(span.name);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

let provider: BasicTracerProvider | undefined;

afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
});

const blocks: readonly ScriptedReasoning[] = [
  { type: 'thinking', thinking: 'Add them.', signature: 'sig-1' },
  { type: 'redacted_thinking', data: 'opaque-2' },
];

/**
 * The ends of a run, over one wire: a caller that stops reading leaves no span unended, a
 * blocked prompt is `content_filter`, an in-stream error keeps the provider's code, a
 * conversation saved as JSON mid-run resumes, and (for a wire with a reasoning model) a tool
 * loop with reasoning state passes the strict server. Called inside the wire's suite.
 */
export function runEndsConformance(wire: WireUnderTest): void {
  it('ends every span, the in-flight chat span too, when the caller breaks out of stream()', async () => {
    const spans = new UnendedSpans();
    provider = new BasicTracerProvider({ spanProcessors: [spans] });
    const tracer = provider.getTracer('conformance');
    const { model } = await setup(wire, (c) => {
      c.step('ask').callsTools([
        { id: 'call_a', name: 'calc', args: { a: 1, b: 2 } },
      ]);
      c.step('answer').responds('A long answer that comes in several pieces.');
    });
    const registry = new ToolRegistry({ telemetry: { tracer } });
    registry.register(
      defineTool({
        name: 'calc',
        description: 'Adds two numbers',
        input: z.object({ a: z.number(), b: z.number() }),
        run: ({ a, b }) => ToolResponse.success(String(a + b)),
      }),
    );
    const agent = new Agent({ model, registry, telemetry: { tracer } });
    for await (const event of agent.stream('add')) {
      if (event.type === 'text-delta') break;
    }
    registry.shutdown();
    expect(spans.open).toEqual([]);
    expect(spans.ended.filter((name) => name.startsWith('chat '))).toHaveLength(
      2,
    );
    expect(spans.ended.some((name) => name.startsWith('invoke_agent'))).toBe(
      true,
    );
  });

  it('ends a run whose prompt is blocked with content_filter, never completed', async () => {
    const { model } = await setup(wire, (c) => {
      c.step('answer').blocksPrompt();
    });
    const result = await new Agent({
      model,
      registry: calculatorRegistry().registry,
    }).run('something blocked');
    expect(result.stopReason).toBe('content_filter');
  });

  it('reports an in-stream provider error with the provider’s code, never as incomplete', async () => {
    const { model, server } = await setup(
      wire,
      (c) => {
        c.step('answer')
          .deliversWith(
            deliveryFaults.inStreamError(wire.framesThroughFirstText, {
              code: wire.overloaded.code,
              message: wire.overloaded.message,
              status: 503,
            }),
          )
          .responds('This answer is long enough to come in several pieces.');
      },
      { sleep: async () => undefined },
    );
    const result = await new Agent({
      model,
      registry: calculatorRegistry().registry,
    }).run('hello');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError?.kind).toBe('stream');
    // The provider's code survives: as `code` (every wire of this folder), or at least in the
    // message of a wire that does not set `code` yet.
    expect(result.modelError?.code ?? result.modelError?.message).toContain(
      wire.overloaded.code,
    );
    expect(result.modelError?.status).toBe(
      wire.inStreamStatus === true ? 503 : undefined,
    );
    expect(result.modelError?.message).toContain(wire.overloaded.message);
    expect(server.journal).toHaveLength(1);
  });

  it('resumes a conversation saved as JSON mid-run in a fresh agent', async () => {
    const reasoning = wire.reasoningModel;
    const { server, url } = await setup(wire, (c) => {
      const ask = c.step('ask');
      if (reasoning !== undefined) ask.thinks(blocks);
      ask.callsTools([
        {
          id: 'call_r',
          name: 'calc',
          args: { a: 2, b: 12 },
          ...(reasoning === undefined ? {} : { thoughtSignature: 'gsig' }),
        },
      ]);
      c.step('answer')
        .whenToolResult('calc', 'call_r', 'ok')
        .responds('It is 14.')
        .complete();
    });
    const { registry } = calculatorRegistry();
    const stopped = await new Agent({
      model: reasoning?.(url) ?? wire.model(url, {}),
      registry,
      maxSteps: 1,
    }).run('add 2 and 12');
    expect(stopped.stopReason).toBe('max_steps');
    const saved = JSON.parse(JSON.stringify(stopped.messages)) as ChatMessage[];
    // A fresh model and agent, from the JSON alone.
    const resumed = await new Agent({
      model: reasoning?.(url) ?? wire.model(url, {}),
      registry,
    }).run(saved);
    expect(resumed.stopReason).toBe('completed');
    expect(resumed.text).toBe('It is 14.');
    expect(wire.toolResults(server.journal[1]?.body)).toEqual([
      { id: 'call_r', content: '14', isError: undefined },
    ]);
    server.assertNoUnmatched();
  });
}
