import {
  type Attributes,
  createNoopMeter,
  type Counter,
  type Meter,
  type ObservableCallback,
  type ObservableGauge,
} from '@opentelemetry/api';
import { BreakerState } from './breaker-state.ts';

/**
 * The breaker's metric names. There is no OpenTelemetry convention for circuit breakers, so they
 * live in our own namespace; counters carry no `_total` suffix.
 */
export const breakerMetricNames = Object.freeze({
  STATE: 'agent_tool.circuit_breaker.state',
  TRANSITIONS: 'agent_tool.circuit_breaker.transitions',
  CALLS: 'agent_tool.circuit_breaker.calls',
});

/** How a call through an enabled breaker ended, as the `calls` counter records it. */
export type BreakerCallOutcome = 'success' | 'failure' | 'ignored' | 'rejected';

// Copied from the GenAI semantic conventions, which are still in development: importing the
// incubating entry point at run time is what the JS SIG advises libraries against.
const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';

// The class of the API's no-op meter; it is not exported by name.
const NoopMeter = createNoopMeter().constructor;

const allStates: readonly BreakerState[] = Object.values(BreakerState);

interface Watched {
  /** One attribute set per state, made on the first collection: without an SDK there is none. */
  readonly states: () => readonly (readonly [BreakerState, Attributes])[];
  readonly current: () => BreakerState;
}

/** The instruments of one meter, shared by every breaker that reports to it. */
class BreakerInstruments {
  readonly transitions: Counter;
  readonly calls: Counter;
  readonly #state: ObservableGauge;
  readonly #watched = new Set<Watched>();
  readonly #observe: ObservableCallback = (result) => {
    for (const watched of this.#watched) {
      const current = watched.current();
      // Every state is reported, the current one as 1, so a dashboard can sum or pick one.
      for (const [state, attributes] of watched.states()) {
        result.observe(state === current ? 1 : 0, attributes);
      }
    }
  };

  constructor(meter: Meter) {
    this.#state = meter.createObservableGauge(breakerMetricNames.STATE, {
      description:
        'The state of each tool circuit breaker: 1 for its current state, 0 for every other.',
      unit: '{breaker}',
    });
    this.transitions = meter.createCounter(breakerMetricNames.TRANSITIONS, {
      description: 'Real state transitions of tool circuit breakers.',
      unit: '{transition}',
    });
    this.calls = meter.createCounter(breakerMetricNames.CALLS, {
      description:
        'Calls through tool circuit breakers, by outcome: success, failure (counted), ignored (a non-counted error) or rejected (not run).',
      unit: '{call}',
    });
  }

  watch(watched: Watched): void {
    // One callback per meter, not per breaker: a thousand tools cost one observation pass.
    if (this.#watched.size === 0) this.#state.addCallback(this.#observe);
    this.#watched.add(watched);
  }

  unwatch(watched: Watched): void {
    if (!this.#watched.delete(watched)) return;
    if (this.#watched.size === 0) this.#state.removeCallback(this.#observe);
  }
}

const instrumentsByMeter = new WeakMap<Meter, BreakerInstruments>();

function instrumentsFor(meter: Meter): BreakerInstruments {
  let instruments = instrumentsByMeter.get(meter);
  if (instruments === undefined) {
    instruments = new BreakerInstruments(meter);
    instrumentsByMeter.set(meter, instruments);
  }
  return instruments;
}

/** What {@link BreakerMetrics.create} needs. */
export interface BreakerMetricsOptions {
  readonly meter: Meter;
  readonly tool: string;
  /** Read when the state gauge is collected. */
  readonly state: () => BreakerState;
  /** Told when the meter throws; telemetry must never break a call. */
  readonly onError: (error: unknown) => void;
}

/**
 * One breaker's metrics. Every attribute set a call needs is built once here, so recording a
 * call allocates nothing of ours.
 */
export class BreakerMetrics {
  readonly #instruments: BreakerInstruments;
  readonly #tool: string;
  readonly #watched: Watched;
  // Made on first use: thousands of breakers that are never called, or never collected, cost
  // no attribute objects.
  readonly #callAttributes: Partial<Record<BreakerCallOutcome, Attributes>> =
    {};
  #stateAttributes:
    readonly (readonly [BreakerState, Attributes])[] | undefined;
  readonly #onError: (error: unknown) => void;

  private constructor(
    instruments: BreakerInstruments,
    options: BreakerMetricsOptions,
  ) {
    const tool = options.tool;
    this.#instruments = instruments;
    this.#tool = tool;
    this.#onError = options.onError;
    this.#watched = {
      states: () =>
        (this.#stateAttributes ??= allStates.map(
          (state) => [state, { [GEN_AI_TOOL_NAME]: tool, state }] as const,
        )),
      current: options.state,
    };
    instruments.watch(this.#watched);
  }

  /** Starts reporting one breaker, or returns `undefined` (after `onError`) if the meter throws. */
  static create(options: BreakerMetricsOptions): BreakerMetrics | undefined {
    try {
      // The API's global meter is a plain no-op (not a proxy) when no SDK was registered first,
      // so nothing it is given can ever be exported: thousands of breakers skip the bookkeeping.
      if (options.meter instanceof NoopMeter) return undefined;
      return new BreakerMetrics(instrumentsFor(options.meter), options);
    } catch (error: unknown) {
      options.onError(error);
      return undefined;
    }
  }

  /** Counts one call. */
  call(outcome: BreakerCallOutcome): void {
    try {
      const attributes = (this.#callAttributes[outcome] ??= {
        [GEN_AI_TOOL_NAME]: this.#tool,
        outcome,
      });
      this.#instruments.calls.add(1, attributes);
    } catch (error: unknown) {
      this.#onError(error);
    }
  }

  /** Counts one real transition, with who decided it: this process or the fleet. */
  transition(
    from: BreakerState,
    to: BreakerState,
    origin: 'process' | 'fleet',
  ): void {
    try {
      this.#instruments.transitions.add(1, {
        [GEN_AI_TOOL_NAME]: this.#tool,
        from,
        to,
        origin,
      });
    } catch (error: unknown) {
      this.#onError(error);
    }
  }

  /** Stops reporting the breaker's state: its gauge callback goes with the last breaker. */
  close(): void {
    try {
      this.#instruments.unwatch(this.#watched);
    } catch (error: unknown) {
      this.#onError(error);
    }
  }
}
