import { ToolRegistry } from '@candor/registry';
import { LlmTestServer, type ConversationScript } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  context,
  type Meter,
  ProxyTracer,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type HistogramMetricData,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { scriptedModel } from './scripted-model.ts';
import { openaiCompatible } from './wires/openai-compatible/openai-compatible.ts';

class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {
    // Nothing buffered: collect() reads the instruments.
  }
  protected override async onShutdown(): Promise<void> {
    // No exporter.
  }
}

const contextManager = new AsyncLocalStorageContextManager();
let exporter: InMemorySpanExporter;
let tracerProvider: BasicTracerProvider;
let reader: ManualReader;
let meterProvider: MeterProvider;
let server: LlmTestServer;
let close: () => Promise<void>;
let serverURL: string;
let registry: ToolRegistry;

beforeEach(() => {
  contextManager.enable();
  context.setGlobalContextManager(contextManager);
  exporter = new InMemorySpanExporter();
  tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  reader = new ManualReader();
  meterProvider = new MeterProvider({ readers: [reader] });
});

afterEach(async () => {
  registry.shutdown();
  await close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  context.disable();
});

async function agentFor(
  script: (conversation: ConversationScript) => void,
  options: { recordContent?: boolean } = {},
): Promise<Agent> {
  server = new LlmTestServer();
  server.conversation('run', script);
  const started = await server.start();
  close = started.close;
  serverURL = started.url;
  const tracer = tracerProvider.getTracer('test');
  registry = new ToolRegistry({ telemetry: { tracer } });
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Adds two numbers, or fails on request',
      input: z.object({
        a: z.number(),
        b: z.number(),
        fail: z.boolean().default(false),
        apiKey: z.string().optional(),
      }),
      run: ({ a, b, fail }) =>
        fail
          ? ToolResponse.error('EXECUTION_ERROR', 'Division by zero')
          : ToolResponse.success(String(a + b)),
    }),
  );
  return new Agent({
    name: 'calculator',
    model: openaiCompatible({
      baseURL: `${started.url}/v1`,
      apiKey: 'test-key',
      model: 'gpt-test',
      sleep: async () => undefined,
    }),
    registry,
    telemetry: {
      tracer,
      meter: meterProvider.getMeter('test'),
      ...options,
    },
  });
}

interface Node {
  readonly name: string;
  readonly children: Node[];
}

/** The finished spans as a tree of names, children in start order. */
function tree(spans: readonly ReadableSpan[]): Node[] {
  const byParent = (id: string | undefined): Node[] =>
    spans
      .filter((span) => span.parentSpanContext?.spanId === id)
      .sort((a, b) =>
        a.startTime[0] === b.startTime[0]
          ? a.startTime[1] - b.startTime[1]
          : a.startTime[0] - b.startTime[0],
      )
      .map((span) => ({
        name: span.name,
        children: byParent(span.spanContext().spanId),
      }));
  return byParent(undefined);
}

function spanNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

describe('agent spans', () => {
  it('traces a run with two tool calls and a retried model request as one tree', async () => {
    const agent = await agentFor((c) => {
      c.step('ask')
        .fails(503, 'server_error', 'Overloaded')
        .callsTools([
          { id: 'call_1', name: 'calc', args: { a: 2, b: 3 } },
          { id: 'call_2', name: 'calc', args: { a: 1, b: 0, fail: true } },
        ]);
      c.step('answer').responds('5, and the division failed.').complete();
    });
    const result = await agent.run('add and divide');
    expect(result.stopReason).toBe('completed');

    expect(tree(exporter.getFinishedSpans())).toEqual([
      {
        name: 'invoke_agent calculator',
        children: [
          { name: 'chat gpt-test', children: [] },
          { name: 'execute_tool calc', children: [] },
          { name: 'execute_tool calc', children: [] },
          { name: 'chat gpt-test', children: [] },
        ],
      },
    ]);

    const [run] = spanNamed('invoke_agent calculator');
    expect(run?.kind).toBe(SpanKind.INTERNAL);
    expect(run?.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'calculator',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': result.usage.inputTokens,
      'gen_ai.usage.output_tokens': result.usage.outputTokens,
      'candor.agent.stop_reason': 'completed',
    });
    expect(run?.status.code).toBe(SpanStatusCode.UNSET);

    const [first, second] = spanNamed('chat gpt-test');
    expect(first?.kind).toBe(SpanKind.CLIENT);
    expect(first?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(first?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(first?.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(
      first?.events.map((event) => [event.name, event.attributes]),
    ).toEqual([
      [
        'retry',
        {
          'candor.retry.attempt': 1,
          'candor.retry.delay_ms': expect.any(Number) as number,
          'error.type': '503',
        },
      ],
    ]);
    expect(second?.attributes['gen_ai.response.finish_reasons']).toEqual([
      'stop',
    ]);
    expect(second?.events).toEqual([]);
    // Prompts and completions are not recorded unless asked for.
    for (const chat of [first, second]) {
      expect(chat?.attributes['gen_ai.input.messages']).toBeUndefined();
      expect(chat?.attributes['gen_ai.output.messages']).toBeUndefined();
    }

    const tools = spanNamed('execute_tool calc');
    expect(tools.map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(
      ['call_1', 'call_2'],
    );
    expect(tools.map((span) => span.attributes['error.type'])).toEqual([
      undefined,
      'EXECUTION_ERROR',
    ]);

    const { resourceMetrics } = await reader.collect();
    const metric = (name: string) =>
      resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((entry) => entry.descriptor.name === name) as
        HistogramMetricData | undefined;
    const tokens = metric('gen_ai.client.token.usage');
    expect(tokens?.descriptor.unit).toBe('{token}');
    expect(
      tokens?.dataPoints
        .map((point) => [
          point.attributes['gen_ai.token.type'],
          point.value.count,
        ])
        .sort(),
    ).toEqual([
      ['input', 2],
      ['output', 2],
    ]);
    const duration = metric('gen_ai.client.operation.duration');
    expect(duration?.descriptor.unit).toBe('s');
    expect(
      duration?.dataPoints.reduce((sum, point) => sum + point.value.count, 0),
    ).toBe(2);
  });

  it('sets error.type on a failed run and its failed chat', async () => {
    const agent = await agentFor((c) => {
      c.step('answer').fails(400, 'invalid_request_error', 'bad').responds('x');
    });
    const result = await agent.run('hello');
    expect(result.stopReason).toBe('model_error');
    expect(tree(exporter.getFinishedSpans())).toEqual([
      {
        name: 'invoke_agent calculator',
        children: [{ name: 'chat gpt-test', children: [] }],
      },
    ]);
    const [run] = spanNamed('invoke_agent calculator');
    const [chat] = spanNamed('chat gpt-test');
    expect(run?.attributes['error.type']).toBe('400');
    expect(run?.attributes['candor.agent.stop_reason']).toBe('model_error');
    expect(run?.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat?.attributes['error.type']).toBe('400');
    expect(chat?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('names the exhausted error budget on the run span', async () => {
    const agent = await agentFor((c) => {
      for (const index of [1, 2, 3]) {
        c.step(`try${String(index)}`).callsTools([
          {
            id: `call_${String(index)}`,
            name: 'calc',
            args: { a: index, b: 0, fail: true },
          },
        ]);
      }
    });
    const result = await agent.run('divide');
    expect(result.stopReason).toBe('error_budget');
    const [run] = spanNamed('invoke_agent calculator');
    expect(run?.attributes).toMatchObject({
      'candor.agent.stop_reason': 'error_budget',
      'candor.agent.error_budget.exhausted': 'max_consecutive_errors',
      'error.type': 'error_budget',
    });
  });

  it('records prompts and completions only when asked, with secret-named keys redacted', async () => {
    const agent = await agentFor(
      (c) => {
        c.step('ask').callsTools([
          {
            id: 'call_1',
            name: 'calc',
            args: { a: 1, b: 1, apiKey: 'sk-live-very-secret' },
          },
        ]);
        c.step('answer').responds('2.').complete();
      },
      { recordContent: true },
    );
    await agent.run('add with my key');
    const [first, second] = spanNamed('chat gpt-test');
    const output = String(first?.attributes['gen_ai.output.messages']);
    const input = String(second?.attributes['gen_ai.input.messages']);
    expect(JSON.parse(output)).toEqual([
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call_1',
            name: 'calc',
            arguments: { a: 1, b: 1, apiKey: '[REDACTED]' },
          },
        ],
      },
    ]);
    expect(input).toContain('add with my key');
    expect(input).toContain('[REDACTED]');
    expect(input + output).not.toContain('sk-live-very-secret');
  });

  it('records nothing with telemetry: false, and a throwing tracer or meter never changes a run', async () => {
    await agentFor((c) => {
      c.step('first').responds('Hello.');
      c.step('second').responds('Hello.').complete();
    });
    const model = openaiCompatible({
      baseURL: `${serverURL}/v1`,
      apiKey: 'test-key',
      model: 'gpt-test',
    });
    const off = await new Agent({ model, registry, telemetry: false }).run(
      'hi',
    );
    expect(off.text).toBe('Hello.');
    expect(spanNamed('chat gpt-test')).toEqual([]);
    const broken = new Proxy(
      {},
      {
        get: () => () => {
          throw new Error('broken telemetry');
        },
      },
    );
    const result = await new Agent({
      model,
      registry,
      telemetry: { tracer: broken as Tracer, meter: broken as Meter },
    }).run('hi');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('Hello.');
  });

  it('ends the run span as abandoned when the caller stops iterating', async () => {
    const agent = await agentFor((c) => {
      c.step('answer').responds('A long enough answer in pieces.').complete();
    });
    for await (const event of agent.stream('hello')) {
      if (event.type === 'text-delta') break;
    }
    const [run] = spanNamed('invoke_agent calculator');
    expect(run?.attributes['candor.agent.stop_reason']).toBe('abandoned');
  });
});

describe('agent telemetry on the global API', () => {
  afterEach(() => {
    trace.disable();
    vi.restoreAllMocks();
  });

  it('starts no span while no SDK is registered, and an SDK registered later gets the next run', async () => {
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    registry = new ToolRegistry({ telemetry: false });
    close = async () => undefined;
    const agent = new Agent({
      model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
      registry,
    });

    const first = await agent.run('hi');

    expect(first.text).toBe('one');
    expect(startSpan).not.toHaveBeenCalled();

    trace.setGlobalTracerProvider(tracerProvider);
    const second = await agent.run('hi');

    expect(second.text).toBe('two');
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
      'chat scripted',
      'invoke_agent agent',
    ]);
  });
});
