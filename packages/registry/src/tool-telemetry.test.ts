import { type ToolErrorCode } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import {
  context,
  metrics,
  type Meter,
  ProxyTracer,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type OtelHarness,
  otelHarness,
  type Point,
} from './__fixtures__/otel-harness.ts';
import { ToolRegistry, type ToolRegistryOptions } from './tool-registry.ts';

// Written out rather than imported, so a renamed attribute or metric fails here.
const DURATION = 'gen_ai.execute_tool.duration';
const BREAKER_STATE = 'agent_tool.circuit_breaker.state';
const BREAKER_TRANSITIONS = 'agent_tool.circuit_breaker.transitions';
const BREAKER_CALLS = 'agent_tool.circuit_breaker.calls';

const harnesses: OtelHarness[] = [];
const registries: ToolRegistry[] = [];

function harness(temporality?: 'cumulative' | 'delta'): OtelHarness {
  const made = otelHarness(temporality);
  harnesses.push(made);
  return made;
}

function registryWith(
  otel: OtelHarness | undefined,
  options: ToolRegistryOptions = {},
): ToolRegistry {
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 2, resetTimeoutMs: 1_000 },
    ...(otel === undefined
      ? {}
      : { telemetry: { tracer: otel.tracer, meter: otel.meter } }),
    ...options,
  });
  registries.push(registry);
  return registry;
}

/** A tool that answers whatever `answer` holds, after `delayMs` of (fake) time. */
function scripted(name: string, description = `The ${name} tool`) {
  const state: { answer: ToolResponse; delayMs: number } = {
    answer: ToolResponse.success('ok'),
    delayMs: 0,
  };
  const run = vi.fn(async (): Promise<ToolResponse> => {
    if (state.delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    }
    return state.answer;
  });
  const tool = defineTool({
    name,
    description,
    input: z.object({ q: z.string().optional(), token: z.string().optional() }),
    run,
  });
  return { tool, run, state };
}

const failure = (code: ToolErrorCode): ToolResponse =>
  ToolResponse.error(code, `failed with ${code}`);

function onlySpan(spans: ReadableSpan[]): ReadableSpan {
  expect(spans).toHaveLength(1);
  const [span] = spans;
  if (span === undefined) throw new Error('no span');
  return span;
}

function byKey(points: Point[], key: string): Record<string, number> {
  return Object.fromEntries(
    points.map((point) => [String(point.attributes[key]), point.value]),
  );
}

beforeEach(() => {
  vi.useFakeTimers({
    toFake: [
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'Date',
      'performance',
    ],
  });
});

afterEach(async () => {
  for (const registry of registries.splice(0)) registry.shutdown();
  for (const each of harnesses.splice(0)) await each.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('25. telemetry: execute_tool spans', () => {
  it('25. a successful call is one INTERNAL span "execute_tool <tool>" with the GenAI attributes and no status', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool } = scripted('get_user', 'Looks a user up by id');
    registry.register(tool);

    const response = await registry.call(
      'get_user',
      { q: 'u_42', token: 'sk-secret-value' },
      { callId: 'call_1' },
    );

    expect(response.status).toBe('success');
    const span = onlySpan(otel.spans());
    expect(span.name).toBe('execute_tool get_user');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    // Exactly these: arguments and results are not recorded.
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_user',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Looks a user up by id',
      'candor.tool.outcome': 'success',
      'candor.tool.stage': 'run',
      'agent_tool.circuit_breaker.state': 'closed',
    });
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.ended).toBe(true);
  });

  it('25. a partial result leaves the status unset; a tool without a breaker has no breaker state', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool, state } = scripted('read_file');
    registry.register(tool, { breaker: false });
    state.answer = ToolResponse.partial('first half', { reason: 'truncated' });

    await registry.call('read_file', {}, { callId: 'call_2' });

    const span = onlySpan(otel.spans());
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.attributes['candor.tool.outcome']).toBe('partial');
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.attributes).not.toHaveProperty(BREAKER_STATE);
  });

  it.each([
    ['a counted error from the tool', 'API_ERROR', 'run'],
    ['a non-counted error from the tool', 'NOT_FOUND', 'run'],
    ['a timeout', 'TIMEOUT', 'run'],
  ] as const)(
    '25. %s: status ERROR with error.type = the code',
    async (_label, code, stage) => {
      const otel = harness();
      const registry = registryWith(otel);
      const { tool, state } = scripted('web_fetch');
      registry.register(tool);
      state.answer = failure(code);

      const response = await registry.call('web_fetch', {}, { callId: 'c' });

      expect(response.status === 'error' && response.errorInfo.code).toBe(code);
      const span = onlySpan(otel.spans());
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(span.attributes).toMatchObject({
        'error.type': code,
        'candor.tool.outcome': 'error',
        'candor.tool.stage': stage,
      });
      expect(span.attributes).not.toHaveProperty(
        'agent_tool.circuit_breaker.rejected',
      );
    },
  );

  it('25. errors before the run (unknown tool, bad arguments) are errors too, and an unknown name is still named', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool, run } = scripted('web_fetch');
    registry.register(tool);

    await registry.call('no_such_tool', {}, { callId: 'c1' });
    await registry.call('web_fetch', { q: 42 }, { callId: 'c2' });
    await registry.call('web_fetch', '{not json', { callId: 'c3' });

    expect(run).not.toHaveBeenCalled();
    expect(
      otel.spans().map((span) => ({
        name: span.name,
        status: span.status.code,
        errorType: span.attributes['error.type'],
        stage: span.attributes['candor.tool.stage'],
        tool: span.attributes['gen_ai.tool.name'],
        callId: span.attributes['gen_ai.tool.call.id'],
      })),
    ).toEqual([
      {
        name: 'execute_tool no_such_tool',
        status: SpanStatusCode.ERROR,
        errorType: 'NOT_FOUND',
        stage: 'lookup',
        tool: 'no_such_tool',
        callId: 'c1',
      },
      {
        name: 'execute_tool web_fetch',
        status: SpanStatusCode.ERROR,
        errorType: 'INVALID_PARAM',
        stage: 'arguments',
        tool: 'web_fetch',
        callId: 'c2',
      },
      {
        name: 'execute_tool web_fetch',
        status: SpanStatusCode.ERROR,
        errorType: 'INVALID_FORMAT',
        stage: 'arguments',
        tool: 'web_fetch',
        callId: 'c3',
      },
    ]);
  });

  it('25. a denial is an error on the wire: ERROR, error.type ACCESS_DENIED, outcome denied', async () => {
    const otel = harness();
    const registry = registryWith(otel, { approve: () => false });
    const { tool, run } = scripted('shell');
    registry.register(tool);

    await registry.call('shell', {}, { callId: 'c' });

    expect(run).not.toHaveBeenCalled();
    const span = onlySpan(otel.spans());
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span.attributes).toMatchObject({
      'error.type': 'ACCESS_DENIED',
      'candor.tool.outcome': 'denied',
      'candor.tool.stage': 'approval',
    });
  });

  it('25. a call refused by an open breaker: ERROR with CIRCUIT_OPEN, rejected=true and the state at admission', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool, run, state } = scripted('flaky');
    registry.register(tool);
    state.answer = failure('API_ERROR');
    await registry.call('flaky', {}, { callId: 'f1' });
    await registry.call('flaky', {}, { callId: 'f2' });

    await registry.call('flaky', {}, { callId: 'refused' });

    expect(run).toHaveBeenCalledTimes(2);
    const [first, second, refused] = otel.spans();
    expect(first?.attributes[BREAKER_STATE]).toBe('closed');
    // The second failure opened the breaker, but it was admitted while closed.
    expect(second?.attributes[BREAKER_STATE]).toBe('closed');
    expect(refused?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(refused?.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'refused',
      'error.type': 'CIRCUIT_OPEN',
      'candor.tool.outcome': 'error',
      'candor.tool.stage': 'breaker',
      'agent_tool.circuit_breaker.rejected': true,
      'agent_tool.circuit_breaker.state': 'open',
    });
  });

  it('25. while a half-open trial runs, a refused call records half_open as its state at admission', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool, state } = scripted('flaky');
    registry.register(tool);
    state.answer = failure('API_ERROR');
    await registry.call('flaky', {});
    await registry.call('flaky', {});
    await vi.advanceTimersByTimeAsync(1_000);
    state.answer = ToolResponse.success('back');
    state.delayMs = 100;

    const trial = registry.call('flaky', {}, { callId: 'trial' });
    await registry.call('flaky', {}, { callId: 'refused' });
    await vi.advanceTimersByTimeAsync(100);
    await trial;

    const spans = otel.spans();
    const refused = spans.find(
      (span) => span.attributes['gen_ai.tool.call.id'] === 'refused',
    );
    const trialSpan = spans.find(
      (span) => span.attributes['gen_ai.tool.call.id'] === 'trial',
    );
    expect(refused?.attributes).toMatchObject({
      'error.type': 'CIRCUIT_OPEN',
      'agent_tool.circuit_breaker.rejected': true,
      'agent_tool.circuit_breaker.state': 'half_open',
    });
    expect(trialSpan?.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(trialSpan?.attributes[BREAKER_STATE]).toBe('half_open');
  });

  it('25. the span is a child of the active span and the parent of the spans the tool starts', async () => {
    context.setGlobalContextManager(
      new AsyncLocalStorageContextManager().enable(),
    );
    const otel = harness();
    const registry = registryWith(otel);
    registry.register(
      defineTool({
        name: 'web_fetch',
        description: 'Fetches',
        input: z.object({}),
        run: async () => {
          // What an instrumented HTTP client would do inside the tool.
          otel.tracer.startSpan('GET').end();
          return ToolResponse.success('ok');
        },
      }),
    );

    await otel.tracer.startActiveSpan('invoke_agent', async (agent) => {
      await registry.call('web_fetch', {});
      agent.end();
    });

    const spans = otel.spans();
    const agent = spans.find((span) => span.name === 'invoke_agent');
    const tool = spans.find((span) => span.name === 'execute_tool web_fetch');
    const http = spans.find((span) => span.name === 'GET');
    expect(tool?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId);
    expect(http?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId);
    expect(tool?.spanContext().traceId).toBe(agent?.spanContext().traceId);
  });
});

describe('25. telemetry: metrics', () => {
  it('25. gen_ai.execute_tool.duration: seconds, per tool, error.type only on errors', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool, state } = scripted('slow_tool');
    registry.register(tool);

    state.delayMs = 1_500;
    const ok = registry.call('slow_tool', {});
    await vi.advanceTimersByTimeAsync(1_500);
    await ok;
    state.delayMs = 250;
    state.answer = failure('NOT_FOUND');
    const failed = registry.call('slow_tool', {});
    await vi.advanceTimersByTimeAsync(250);
    await failed;
    await registry.call('invented_name', {});

    const [duration, ...others] = (await otel.collect()).filter(
      ({ metric }) => metric.descriptor.name === DURATION,
    );
    expect(others).toEqual([]);
    expect(duration?.metric.descriptor).toMatchObject({
      name: DURATION,
      unit: 's',
    });
    const points = (duration?.metric as HistogramMetricData).dataPoints.map(
      ({ attributes, value }) => ({
        attributes,
        count: value.count,
        sum: value.sum,
      }),
    );
    expect(points).toEqual([
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'slow_tool',
          'gen_ai.tool.type': 'function',
        },
        count: 1,
        sum: 1.5,
      },
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'slow_tool',
          'gen_ai.tool.type': 'function',
          'error.type': 'NOT_FOUND',
        },
        count: 1,
        sum: 0.25,
      },
      {
        // A name nobody registered is not a new series: a model cannot grow the cardinality.
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': '_OTHER',
          'gen_ai.tool.type': 'function',
          'error.type': 'NOT_FOUND',
        },
        count: 1,
        sum: 0,
      },
    ]);
    // The GenAI boundaries, not the SDK's millisecond-sized defaults.
    expect(
      (duration?.metric as HistogramMetricData).dataPoints[0]?.value.buckets
        .boundaries,
    ).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
      40.96, 81.92,
    ]);
  });

  it('25. the breakers report to the injected meter: state, transitions and calls with exact counts', async () => {
    const otel = harness();
    const registry = registryWith(otel);
    const { tool, state } = scripted('flaky');
    registry.register(tool);

    await registry.call('flaky', {});
    state.answer = failure('NOT_FOUND');
    await registry.call('flaky', {});
    state.answer = failure('API_ERROR');
    await registry.call('flaky', {});
    await registry.call('flaky', {});
    await registry.call('flaky', {});
    await registry.call('flaky', { q: 7 }); // INVALID_PARAM never reaches the breaker
    await registry.call('flaky', {});

    const states = await otel.points(BREAKER_STATE);
    expect(byKey(states, 'state')).toEqual({
      closed: 0,
      open: 1,
      half_open: 0,
      disabled: 0,
      shutdown: 0,
    });
    expect(byKey(await otel.points(BREAKER_CALLS), 'outcome')).toEqual({
      success: 1,
      ignored: 1,
      failure: 3,
      rejected: 1,
    });
    expect(
      (await otel.points(BREAKER_TRANSITIONS)).map(({ attributes, value }) => ({
        ...attributes,
        value,
      })),
    ).toEqual([
      {
        'gen_ai.tool.name': 'flaky',
        from: 'closed',
        to: 'open',
        origin: 'process',
        value: 1,
      },
    ]);
  });

  it('25. shutdown removes the breakers’ state callback', async () => {
    const otel = harness('delta');
    const registry = registryWith(otel);
    registry.register(scripted('a').tool).register(scripted('b').tool);
    await registry.call('a', {});
    await registry.call('b', {});
    expect(await otel.points(BREAKER_STATE)).toHaveLength(10);

    registry.shutdown();

    expect(await otel.points(BREAKER_STATE)).toEqual([]);
  });
});

describe('25. telemetry: switches and failures', () => {
  it('25. without options, spans and metrics go to the global providers under the package scopes', async () => {
    const otel = harness();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    metrics.setGlobalMeterProvider(otel.meterProvider);
    const registry = registryWith(undefined);
    registry.register(scripted('get_user').tool);

    await registry.call('get_user', {});

    const span = onlySpan(otel.spans());
    expect(span.instrumentationScope).toEqual({
      name: '@candor/registry',
      version: '0.0.0',
    });
    const scopes = new Set(
      (await otel.collect()).map(
        ({ scope, version, metric }) =>
          `${scope}@${String(version)} ${metric.descriptor.name}`,
      ),
    );
    expect(scopes).toEqual(
      new Set([
        `@candor/registry@0.0.0 ${DURATION}`,
        `@candor/breaker@0.0.0 ${BREAKER_STATE}`,
        `@candor/breaker@0.0.0 ${BREAKER_CALLS}`,
      ]),
    );
  });

  it('25. with no SDK registered no span is started, and an SDK registered later gets the next call', async () => {
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    const registry = registryWith(undefined);
    registry.register(scripted('get_user').tool);

    const first = await registry.call('get_user', {});

    expect(first.status).toBe('success');
    expect(startSpan).not.toHaveBeenCalled();

    const otel = harness();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    await registry.call('get_user', {});

    expect(onlySpan(otel.spans()).name).toBe('execute_tool get_user');
  });

  it("25. an injected no-op tracer (the API's own) is never asked for a span", async () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the API's own no-op tracer
    const noopTracer = new ProxyTracerProvider().getDelegate().getTracer('x');
    const startSpan = vi.spyOn(noopTracer, 'startSpan');
    const registry = registryWith(undefined, {
      telemetry: { tracer: noopTracer },
    });
    registry.register(scripted('get_user').tool);

    const response = await registry.call('get_user', {});

    expect(response.status).toBe('success');
    expect(startSpan).not.toHaveBeenCalled();
  });

  it('25. telemetry: false records nothing, even with global providers registered', async () => {
    const otel = harness();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    metrics.setGlobalMeterProvider(otel.meterProvider);
    const registry = registryWith(undefined, { telemetry: false });
    const { tool, state } = scripted('flaky');
    registry.register(tool);
    await registry.call('flaky', {});
    state.answer = failure('API_ERROR');
    await registry.call('flaky', {});
    await registry.call('flaky', {});
    const refused = await registry.call('flaky', {});

    expect(refused.status === 'error' && refused.errorInfo.code).toBe(
      'CIRCUIT_OPEN',
    );
    expect(otel.spans()).toEqual([]);
    expect(await otel.collect()).toEqual([]);
  });

  it('25. a tracer or meter that throws never breaks call(), and is logged once', async () => {
    const lines: { msg: string }[] = [];
    const logger = pino(
      { level: 'warn', base: null, timestamp: false },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as { msg: string });
        },
      },
    );
    const boom = (): never => {
      throw new Error('telemetry is broken');
    };
    const throwingTracer = { startSpan: boom } as unknown as Tracer;
    // Starts fine, then fails when it is ended.
    const brokenSpan: Record<string, unknown> = {
      setStatus: boom,
      end: boom,
      spanContext: boom,
      isRecording: boom,
    };
    brokenSpan['setAttribute'] = () => brokenSpan;
    const brokenSpans = {
      startSpan: () => brokenSpan,
    } as unknown as Tracer;
    const throwingMeter = {
      createHistogram: () => ({ record: boom }),
      createCounter: () => ({ add: boom }),
      createObservableGauge: () => ({
        addCallback: boom,
        removeCallback: boom,
      }),
    } as unknown as Meter;
    const plain = registryWith(undefined, { telemetry: false });
    const throwing = registryWith(undefined, {
      logger,
      telemetry: { tracer: throwingTracer, meter: throwingMeter },
    });
    const broken = registryWith(undefined, {
      telemetry: { tracer: brokenSpans },
    });
    const ends: string[] = [];
    for (const registry of [plain, throwing, broken]) {
      const { tool, state } = scripted('flaky');
      registry.register(tool);
      registry.on('tool:end', (event) => ends.push(event.outcome));
      await registry.call('flaky', {}, { callId: 'a' });
      state.answer = failure('API_ERROR');
      await registry.call('flaky', {}, { callId: 'b' });
      await registry.call('flaky', {}, { callId: 'c' });
      state.answer = ToolResponse.success('not run');
      await registry.call('flaky', {}, { callId: 'd' });
    }
    expect(ends).toEqual([
      ...['success', 'error', 'error', 'error'],
      ...['success', 'error', 'error', 'error'],
      ...['success', 'error', 'error', 'error'],
    ]);
    const summary = async (registry: ToolRegistry): Promise<unknown[]> => {
      const out: unknown[] = [];
      for (const callId of ['e', 'f']) {
        const response = await registry.call(
          'flaky',
          { q: callId },
          { callId },
        );
        out.push({
          status: response.status,
          text: response.text,
          code: response.status === 'error' ? response.errorInfo.code : null,
        });
      }
      return out;
    };

    const expected = await summary(plain);
    expect(expected).toEqual([
      expect.objectContaining({ code: 'CIRCUIT_OPEN' }),
      expect.objectContaining({ code: 'CIRCUIT_OPEN' }),
    ]);
    expect(await summary(throwing)).toEqual(expected);
    expect(await summary(broken)).toEqual(expected);
    // Once from the registry's tracer, once from the breaker's meter; never per call.
    expect(lines.map(({ msg }) => msg)).toEqual([
      'telemetry failed; calls are unaffected',
      'telemetry failed; calls are unaffected',
      'tool call failed',
      'circuit opened: calls are refused',
      'tool call failed',
      'tool call failed',
      'tool call failed',
      'tool call failed',
    ]);
  });

  it('25. bad telemetry options get a clear error', () => {
    expect(() => new ToolRegistry({ telemetry: true as never })).toThrow(
      'ToolRegistry: telemetry must be false or an object like { tracer, meter }, got boolean',
    );
    expect(
      () => new ToolRegistry({ telemetry: { tracer: {} as Tracer } }),
    ).toThrow(
      'ToolRegistry: telemetry.tracer must be an OpenTelemetry Tracer; it lacks startSpan',
    );
    expect(
      () =>
        new ToolRegistry({
          telemetry: {
            meter: { createHistogram: () => undefined } as unknown as Meter,
          },
        }),
    ).toThrow(
      'ToolRegistry: telemetry.meter must be an OpenTelemetry Meter; it lacks createCounter, createObservableGauge',
    );
  });

  it('25. telemetry whose getters or Proxy traps throw gets a clear error naming it', () => {
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap down');
        },
      },
    );
    expect(
      () => new ToolRegistry({ telemetry: { meter: trap as Meter } }),
    ).toThrow(
      new TypeError(
        'ToolRegistry: telemetry.meter could not be read: trap down',
      ),
    );
    expect(
      () => new ToolRegistry({ telemetry: { tracer: trap as Tracer } }),
    ).toThrow('ToolRegistry: telemetry.tracer could not be read: trap down');
    expect(
      () => new ToolRegistry({ telemetry: trap as { meter: Meter } }),
    ).toThrow('ToolRegistry: telemetry could not be read: trap down');
  });

  it('26. reads telemetry once: a getter that throws on its second read does not escape', () => {
    for (const key of ['tracer', 'meter']) {
      let reads = 0;
      const telemetry = Object.defineProperty({}, key, {
        enumerable: true,
        get() {
          reads += 1;
          if (reads > 1) throw new Error('second read');
          return undefined;
        },
      });
      const registry = new ToolRegistry({ telemetry });
      registry.shutdown();
      expect(reads).toBe(1);
    }
  });
});
