import { type ToolErrorCode } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import { createNoopMeter, metrics, type Meter } from '@opentelemetry/api';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { metricHarness, type Point } from './__fixtures__/metric-harness.ts';
import { BreakerMetrics } from './breaker-metrics.ts';
import { type BreakerOptions } from './breaker-options.ts';
import { BreakerRegistry } from './breaker-registry.ts';
import { bucketTicker } from './bucket-ticker.ts';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

// Written out rather than imported, so a renamed metric fails here.
const STATE = 'agent_tool.circuit_breaker.state';
const TRANSITIONS = 'agent_tool.circuit_breaker.transitions';
const CALLS = 'agent_tool.circuit_breaker.calls';
const ALL_STATES = ['closed', 'open', 'half_open', 'disabled', 'shutdown'];

const created: ToolBreaker[] = [];
const harnesses: { shutdown(): Promise<void> }[] = [];

function harness(
  temporality?: 'cumulative' | 'delta',
): ReturnType<typeof metricHarness> {
  const made = metricHarness(temporality);
  harnesses.push(made);
  return made;
}

function make(
  meter: Meter,
  options: BreakerOptions = {},
  name = 'web_fetch',
): ToolBreaker {
  const breaker = createToolBreaker(name, {
    minimumCalls: 2,
    resetTimeoutMs: 1_000,
    timeoutMs: 1_000,
    graceMs: 100,
    telemetry: { meter },
    ...options,
  });
  created.push(breaker);
  return breaker;
}

const failure = (code: ToolErrorCode = 'NETWORK_ERROR'): ToolResponse =>
  ToolResponse.error(code, `failed with ${code}`);

async function callWith(
  breaker: ToolBreaker,
  response: ToolResponse,
): Promise<ToolResponse> {
  return breaker.execute(async () => response);
}

/** `{ state: value }` of one tool's state gauge. */
function statesOf(points: Point[], tool: string): Record<string, number> {
  return Object.fromEntries(
    points
      .filter((point) => point.attributes['gen_ai.tool.name'] === tool)
      .map((point) => [String(point.attributes['state']), point.value]),
  );
}

/** `{ "from→to": count }` of the transitions counter. */
function transitionsOf(points: Point[]): Record<string, number> {
  return Object.fromEntries(
    points.map((point) => [
      `${String(point.attributes['from'])}→${String(point.attributes['to'])}`,
      point.value,
    ]),
  );
}

/** `{ outcome: count }` of one tool's calls counter. */
function callsOf(points: Point[], tool = 'web_fetch'): Record<string, number> {
  return Object.fromEntries(
    points
      .filter((point) => point.attributes['gen_ai.tool.name'] === tool)
      .map((point) => [String(point.attributes['outcome']), point.value]),
  );
}

function only(state: string): Record<string, number> {
  return Object.fromEntries(
    ALL_STATES.map((each) => [each, each === state ? 1 : 0]),
  );
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  for (const breaker of created.splice(0)) breaker.shutdown();
  for (const each of harnesses.splice(0)) await each.shutdown();
  metrics.disable();
  vi.restoreAllMocks();
  expect(bucketTicker.stats()).toEqual({ intervals: 0, breakers: 0 });
  vi.useRealTimers();
});

describe('25. telemetry: breaker metrics', () => {
  it('25. the state metric reports every state, exactly one at 1, through closed → open → half_open → closed', async () => {
    const { meter, points } = harness();
    const breaker = make(meter);
    make(meter, {}, 'other_tool');

    const closed = await points(STATE);
    expect(statesOf(closed, 'web_fetch')).toEqual(only('closed'));
    expect(statesOf(closed, 'other_tool')).toEqual(only('closed'));
    // Five points per breaker, with exactly the two attributes.
    expect(closed).toHaveLength(10);
    expect(Object.keys(closed[0]?.attributes ?? {}).sort()).toEqual([
      'gen_ai.tool.name',
      'state',
    ]);

    await callWith(breaker, failure());
    await callWith(breaker, failure());
    expect(breaker.state).toBe('open');
    const open = await points(STATE);
    expect(statesOf(open, 'web_fetch')).toEqual(only('open'));
    expect(statesOf(open, 'other_tool')).toEqual(only('closed'));

    await vi.advanceTimersByTimeAsync(1_000);
    expect(statesOf(await points(STATE), 'web_fetch')).toEqual(
      only('half_open'),
    );

    await callWith(breaker, ToolResponse.success('back'));
    expect(statesOf(await points(STATE), 'web_fetch')).toEqual(only('closed'));
  });

  it('25. a forced-open breaker reports open, and a disabled one reports disabled', async () => {
    const { meter, points } = harness();
    const forced = make(meter, {}, 'forced');
    const disabled = make(meter, { enabled: false }, 'local');
    const handle = forced.forceOpen();

    const reported = await points(STATE);
    expect(statesOf(reported, 'forced')).toEqual(only('open'));
    expect(statesOf(reported, 'local')).toEqual(only('disabled'));

    handle.release();
    expect(statesOf(await points(STATE), 'forced')).toEqual(only('closed'));
    expect(disabled.state).toBe('disabled');
  });

  it('25. the transitions counter counts each real transition once, by from and to', async () => {
    const { meter, points } = harness();
    const breaker = make(meter);
    expect(await points(TRANSITIONS)).toEqual([]);

    // Two full cycles; the second also fails its first trial.
    await callWith(breaker, failure());
    await callWith(breaker, failure());
    await vi.advanceTimersByTimeAsync(1_000);
    await callWith(breaker, ToolResponse.success('back'));
    await callWith(breaker, failure());
    await callWith(breaker, failure());
    await vi.advanceTimersByTimeAsync(1_000);
    await callWith(breaker, failure('TIMEOUT'));
    await vi.advanceTimersByTimeAsync(1_000);
    await callWith(breaker, ToolResponse.success('back'));
    // A forced open and its release, then a no-op second release.
    const handle = breaker.forceOpen();
    handle.release();
    handle.release();
    breaker.shutdown();

    const reported = await points(TRANSITIONS);
    expect(transitionsOf(reported)).toEqual({
      'closed→open': 3,
      'open→half_open': 3,
      'half_open→closed': 2,
      'half_open→open': 1,
      'open→closed': 1,
      'closed→shutdown': 1,
    });
    expect(
      reported.every(
        (point) => point.attributes['gen_ai.tool.name'] === 'web_fetch',
      ),
    ).toBe(true);
    // Without a shared store every transition is this process's own.
    expect(
      reported.every((point) => point.attributes['origin'] === 'process'),
    ).toBe(true);
  });

  it('25. the calls counter counts success, failure, ignored and rejected exactly', async () => {
    const { meter, points } = harness();
    const breaker = make(meter, { minimumCalls: 5 });

    await callWith(breaker, ToolResponse.success('ok'));
    await callWith(breaker, ToolResponse.partial('half', { reason: 'cut' }));
    await callWith(breaker, failure('NOT_FOUND'));
    await callWith(breaker, ToolResponse.denied('the user said no'));
    await breaker.execute(() => Promise.reject(new Error('boom')));
    expect(breaker.state).toBe('closed');
    // A backstop timeout is one failure, not two.
    const hanging = breaker.execute(
      () => new Promise<ToolResponse>(() => undefined),
    );
    await vi.advanceTimersByTimeAsync(1_100);
    await hanging;
    await callWith(breaker, failure());
    await callWith(breaker, failure());
    expect(breaker.state).toBe('closed');
    await callWith(breaker, failure());
    expect(breaker.state).toBe('open');
    const run = vi.fn(async () => ToolResponse.success('not run'));
    await breaker.execute(run);
    await breaker.execute(run);
    expect(run).not.toHaveBeenCalled();

    expect(callsOf(await points(CALLS))).toEqual({
      success: 2,
      ignored: 2,
      failure: 5,
      rejected: 2,
    });
  });

  it('25. refusals while forced open or after shutdown are rejected; pass-through, pre-aborted and misuse calls are not counted', async () => {
    const { meter, points } = harness();
    const breaker = make(meter);
    const disabled = make(meter, { enabled: false }, 'local');
    const handle = breaker.forceOpen();
    await callWith(breaker, ToolResponse.success('refused'));
    handle.release();
    await breaker.execute(async () => ToolResponse.success('unused'), {
      signal: AbortSignal.abort(),
    });
    await breaker.execute(undefined as never);
    await callWith(disabled, failure());
    await callWith(disabled, ToolResponse.success('ok'));
    breaker.shutdown();
    await callWith(breaker, ToolResponse.success('refused'));

    const reported = await points(CALLS);
    expect(callsOf(reported)).toEqual({ rejected: 2 });
    expect(callsOf(reported, 'local')).toEqual({});
  });

  it('25. shutdown stops reporting the state; the last breaker of a meter removes its callback', async () => {
    const { meter, points } = harness('delta');
    const breakers = new BreakerRegistry({ telemetry: { meter } });
    breakers.get('a');
    breakers.get('b');
    expect(await points(STATE)).toHaveLength(10);

    breakers.get('a').shutdown();
    const left = await points(STATE);
    expect(statesOf(left, 'b')).toEqual(only('closed'));
    expect(statesOf(left, 'a')).toEqual({});

    breakers.shutdownAll();
    expect(await points(STATE)).toEqual([]);
    // A breaker created after shutdownAll is born shut down and never reported.
    breakers.get('c');
    expect(await points(STATE)).toEqual([]);
    // A new breaker on the same meter is reported again: the callback comes back.
    make(meter, {}, 'd');
    expect(statesOf(await points(STATE), 'd')).toEqual(only('closed'));
  });

  it('25. without options, the breaker reports to the global meter under its own scope', async () => {
    const { provider, collect } = harness();
    metrics.setGlobalMeterProvider(provider);
    const breaker = createToolBreaker('web_fetch');
    created.push(breaker);
    await callWith(breaker, ToolResponse.success('ok'));

    const reported = await collect();
    expect(
      reported.map(({ scope, version, metric }) => ({
        scope,
        version,
        name: metric.descriptor.name,
      })),
    ).toEqual(
      expect.arrayContaining([
        { scope: '@candor/breaker', version: '0.0.0', name: STATE },
        { scope: '@candor/breaker', version: '0.0.0', name: CALLS },
      ]),
    );
  });

  it('25. telemetry: false records nothing, even with a global meter registered', async () => {
    const { provider, collect } = harness();
    metrics.setGlobalMeterProvider(provider);
    const breakers = new BreakerRegistry({
      telemetry: false,
      minimumCalls: 2,
    });
    const breaker = breakers.get('web_fetch');
    await callWith(breaker, failure());
    await callWith(breaker, failure());
    await callWith(breaker, ToolResponse.success('refused'));
    expect(breaker.state).toBe('open');
    breakers.shutdownAll();

    expect(await collect()).toEqual([]);
  });

  it('25. a meter that throws never breaks a call, and is logged once', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino(
      { level: 'warn', base: null, timestamp: false },
      {
        write: (line: string) => {
          lines.push(JSON.parse(line) as { level: number; msg: string });
        },
      },
    );
    const boom = (): never => {
      throw new Error('meter is broken');
    };
    const throwingCounter = { add: boom };
    const meter = {
      createCounter: () => throwingCounter,
      createObservableGauge: () => ({
        addCallback: () => undefined,
        removeCallback: () => undefined,
      }),
    } as unknown as Meter;
    const breaker = make(meter, { logger });
    const response = ToolResponse.success('ok');
    expect(await callWith(breaker, response)).toBe(response);
    const refused = failure();
    expect(await callWith(breaker, refused)).toBe(refused);
    expect(await callWith(breaker, refused)).toBe(refused);
    expect(breaker.state).toBe('open');

    const unbuildable = {
      createCounter: boom,
      createObservableGauge: boom,
    } as unknown as Meter;
    const other = make(unbuildable, { logger }, 'other');
    expect(await callWith(other, response)).toBe(response);
    other.shutdown();

    expect(lines.map(({ msg }) => msg)).toEqual([
      'telemetry failed; calls are unaffected',
      'circuit opened: calls are refused',
      'telemetry failed; calls are unaffected',
    ]);
  });

  it('25. bad telemetry options get a clear error', () => {
    expect(() =>
      createToolBreaker('web_fetch', { telemetry: true as never }),
    ).toThrow(
      'Breaker option "telemetry" must be false or an object like { meter }, got true',
    );
    expect(() =>
      createToolBreaker('web_fetch', {
        telemetry: { meter: { createCounter: () => undefined } as never },
      }),
    ).toThrow(
      'Breaker option "telemetry.meter" must be an OpenTelemetry Meter; it lacks createObservableGauge',
    );
  });
});

describe('25. telemetry without an SDK', () => {
  it('keeps no per-breaker metric state when the meter is the API no-op', () => {
    const quiet = BreakerMetrics.create({
      meter: createNoopMeter(),
      tool: 'quiet',
      state: () => 'closed',
      onError: () => undefined,
    });
    expect(quiet).toBeUndefined();
  });
});
