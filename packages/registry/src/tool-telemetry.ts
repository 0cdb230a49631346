import { type BreakerState } from '@candor/breaker';
import { type ToolErrorCode } from '@candor/errors';
import { outcomeOf, type ToolResponse } from '@candor/tools';
import {
  type Attributes,
  context,
  createNoopMeter,
  type Histogram,
  type Meter,
  metrics,
  ProxyTracerProvider,
  type Span,
  type SpanOptions,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import {
  EXECUTE_TOOL,
  EXECUTE_TOOL_DURATION,
  FUNCTION_TOOL,
  genAiAttributes as attr,
} from './gen-ai-attributes.ts';
import { instrumentationScope } from './instrumentation-scope.ts';
import { type CallStage } from './registry-events.ts';

/** Where a registry's spans and metrics go. */
export interface ToolTelemetryOptions {
  /**
   * The tracer of the `execute_tool` spans. Default: the global tracer `@candor/registry` (a
   * no-op unless the application registers a TracerProvider).
   */
  readonly tracer?: Tracer;
  /**
   * The meter of the duration histogram, also handed to the registry's breakers. Default: the
   * global meter `@candor/registry`, taken when the registry is constructed.
   */
  readonly meter?: Meter;
}

/** How a call ended, as the telemetry needs it. */
export interface TracedCallEnd {
  readonly toolName: string;
  readonly result: {
    readonly stage: CallStage;
    /** The state of the tool's breaker when the call reached it, if it did. */
    readonly breakerState?: BreakerState | undefined;
  };
}

// The boundaries the GenAI conventions advise for their duration histograms: 10 ms to 82 s.
const DURATION_BOUNDARIES = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
  40.96, 81.92,
];

// The class of the API's no-op meter; it is not exported by name.
const NoopMeter = createNoopMeter().constructor;

// The API's no-op tracer provider and tracer: what a ProxyTracerProvider without a registered
// SDK delegates to. Neither is exported by name; a fresh proxy hands out both. The proxy class is
// marked deprecated for the API's next major; it is the global provider of every 1.x API.
// eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NoopTracer = NOOP_TRACER_PROVIDER.getTracer('').constructor;

/** A name that was not registered, in metrics: models must not be able to grow cardinality. */
const OTHER_TOOL = '_OTHER';

const ERROR_STATUS: SpanStatus = Object.freeze({ code: SpanStatusCode.ERROR });

/** The attribute sets of one tool, built once so a call allocates none. */
class ToolConstants {
  readonly spanName: string;
  readonly spanOptions: SpanOptions;
  readonly #metricName: string;
  #metric: Attributes | undefined;
  readonly #errorMetrics = new Map<ToolErrorCode, Attributes>();

  constructor(tool: { name: string; description?: string | undefined }) {
    const { name, description } = tool;
    this.spanName = `${EXECUTE_TOOL} ${name}`;
    this.spanOptions = {
      kind: SpanKind.INTERNAL,
      // gen_ai.operation.name is sampling-relevant, so it is set when the span starts.
      attributes: {
        [attr.OPERATION_NAME]: EXECUTE_TOOL,
        [attr.TOOL_NAME]: name,
        [attr.TOOL_TYPE]: FUNCTION_TOOL,
        ...(description === undefined || description === ''
          ? {}
          : { [attr.TOOL_DESCRIPTION]: description }),
      },
    };
    this.#metricName = name;
  }

  /** The histogram's attributes: `error.type` only on errors (one set per code, built lazily). */
  metricAttributes(code: ToolErrorCode | undefined): Attributes {
    if (code === undefined)
      return (this.#metric ??= metricAttributes(this.#metricName));
    let attributes = this.#errorMetrics.get(code);
    if (attributes === undefined) {
      attributes = {
        ...metricAttributes(this.#metricName),
        [attr.ERROR_TYPE]: code,
      };
      this.#errorMetrics.set(code, attributes);
    }
    return attributes;
  }
}

function metricAttributes(name: string): Attributes {
  return {
    [attr.OPERATION_NAME]: EXECUTE_TOOL,
    [attr.TOOL_NAME]: name,
    [attr.TOOL_TYPE]: FUNCTION_TOOL,
  };
}

/**
 * The registry's OpenTelemetry side: one `execute_tool {tool}` span and one
 * `gen_ai.execute_tool.duration` measurement per call. Every call into OpenTelemetry is guarded:
 * a broken tracer or meter is reported through `onError` and never changes a call's response.
 */
export class ToolTelemetry {
  readonly #tracer: Tracer;
  /**
   * Whether spans would be dropped unseen. The check is made once: an injected no-op tracer
   * never records; the global tracer records once an SDK is registered with the API, which a
   * call sees by asking the global proxy for its delegate (a field read), never by starting a
   * span.
   */
  readonly #tracingOff: () => boolean;
  // Undefined for the API's no-op meter (a plain no-op, not a proxy, when no SDK came first):
  // then no call builds the histogram's attribute sets.
  readonly #duration: Histogram | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #tools = new Map<string, ToolConstants>();
  readonly #unknown = new ToolConstants({ name: OTHER_TOOL });

  private constructor(
    options: {
      tracer: Tracer;
      meter: Meter;
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- see NOOP_TRACER_PROVIDER
      global?: ProxyTracerProvider;
    },
    onError: (error: unknown) => void,
  ) {
    this.#tracer = options.tracer;
    const global = options.global;
    this.#tracingOff =
      options.tracer instanceof NoopTracer
        ? () => true
        : global === undefined
          ? () => false
          : () => global.getDelegate() === NOOP_TRACER_PROVIDER;
    this.#onError = onError;
    this.#duration =
      options.meter instanceof NoopMeter
        ? undefined
        : options.meter.createHistogram(EXECUTE_TOOL_DURATION, {
            description: 'Duration of tool executions.',
            unit: 's',
            advice: { explicitBucketBoundaries: DURATION_BOUNDARIES },
          });
  }

  /** The telemetry, or `undefined` (after `onError`) when the meter cannot make a histogram. */
  static create(
    options: ToolTelemetryOptions,
    onError: (error: unknown) => void,
  ): ToolTelemetry | undefined {
    try {
      const { name, version } = instrumentationScope;
      const meter = options.meter ?? metrics.getMeter(name, version);
      if (options.tracer !== undefined) {
        return new ToolTelemetry({ tracer: options.tracer, meter }, onError);
      }
      // The API's global provider is its ProxyTracerProvider, whose delegate is the SDK once
      // one is registered; a provider of another copy of the API is not recognised, and its
      // spans are always made.
      const provider = trace.getTracerProvider();
      return new ToolTelemetry(
        {
          tracer: provider.getTracer(name, version),
          meter,
          // eslint-disable-next-line @typescript-eslint/no-deprecated -- see NOOP_TRACER_PROVIDER
          ...(provider instanceof ProxyTracerProvider
            ? { global: provider }
            : {}),
        },
        onError,
      );
    } catch (error: unknown) {
      onError(error);
      return undefined;
    }
  }

  /** Forgets a replaced tool's attributes; they are rebuilt from the new tool on its next call. */
  forget(toolName: string): void {
    this.#tools.delete(toolName);
  }

  /**
   * Starts the span of one call, as a child of the active context; `undefined` if that throws,
   * or when the tracer is the API's no-op (no SDK registered), which would drop it unseen.
   * `tool` is the registered tool, or undefined for a name that is not registered.
   */
  start(
    toolName: string,
    callId: string,
    tool: { name: string; description?: string | undefined } | undefined,
  ): Span | undefined {
    try {
      if (this.#tracingOff()) return undefined;
      // Built on a tool's first call, not at register(): most of 10,000 registered tools are
      // never called, and their attribute sets would be memory for nothing.
      let known = this.#tools.get(toolName);
      if (known === undefined && tool !== undefined) {
        known = new ToolConstants(tool);
        this.#tools.set(toolName, known);
      }
      const span =
        known === undefined
          ? this.#tracer.startSpan(`${EXECUTE_TOOL} ${truncate(toolName)}`, {
              kind: SpanKind.INTERNAL,
              attributes: {
                [attr.OPERATION_NAME]: EXECUTE_TOOL,
                [attr.TOOL_NAME]: truncate(toolName),
                [attr.TOOL_TYPE]: FUNCTION_TOOL,
              },
            })
          : this.#tracer.startSpan(known.spanName, known.spanOptions);
      span.setAttribute(attr.TOOL_CALL_ID, callId);
      return span;
    } catch (error: unknown) {
      this.#onError(error);
      return undefined;
    }
  }

  /**
   * Runs `run` with `span` active, so spans the tool starts (an HTTP client's, say) are its
   * children. Falls back to running it plainly if the context API throws.
   */
  activate<T>(span: Span, run: () => T): T {
    let active;
    try {
      active = trace.setSpan(context.active(), span);
    } catch (error: unknown) {
      this.#onError(error);
      return run();
    }
    return context.with(active, run);
  }

  /**
   * Records the call's duration and ends its span. Every error response is an error here,
   * whether or not the breaker counts it: status ERROR and `error.type` = the code.
   */
  end(
    span: Span | undefined,
    call: TracedCallEnd,
    response: ToolResponse,
  ): void {
    const duration = this.#duration;
    // The API's no-op meter and no span (no SDK registered): nothing to record.
    if (duration === undefined && span === undefined) return;
    const code =
      response.status === 'error' ? response.errorInfo.code : undefined;
    try {
      const constants = this.#tools.get(call.toolName) ?? this.#unknown;
      duration?.record(
        response.stats.timeMs / 1000,
        constants.metricAttributes(code),
      );
    } catch (error: unknown) {
      this.#onError(error);
    }
    if (span === undefined) return;
    try {
      span.setAttribute(attr.CANDOR_OUTCOME, outcomeOf(response));
      span.setAttribute(attr.CANDOR_STAGE, call.result.stage);
      const breakerState = call.result.breakerState;
      if (breakerState !== undefined) {
        span.setAttribute(attr.BREAKER_STATE, breakerState);
      }
      if (call.result.stage === 'breaker') {
        span.setAttribute(attr.BREAKER_REJECTED, true);
      }
      if (code !== undefined) {
        span.setAttribute(attr.ERROR_TYPE, code);
        // No description: the message is model-facing text that may carry user data.
        span.setStatus(ERROR_STATUS);
      }
    } catch (error: unknown) {
      this.#onError(error);
    }
    try {
      span.end();
    } catch (error: unknown) {
      this.#onError(error);
    }
  }
}

function truncate(name: string): string {
  return name.length <= 80 ? name : `${name.slice(0, 80)}…`;
}
