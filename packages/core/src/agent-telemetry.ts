import { SecretRedactor } from '@candor/tools';
import {
  type Attributes,
  type Context,
  createNoopMeter,
  type Histogram,
  type Meter,
  metrics,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import {
  type AssistantPart,
  type FinishReason,
  type ModelToolCall,
  type Usage,
} from './chat-model.ts';
import { conventionMessages } from './convention-messages.ts';
import { errorType } from './error-type.ts';
import {
  ChatTelemetry,
  type ChatRequestView,
  RunTelemetry,
} from './run-telemetry.ts';
import {
  agentAttributes,
  AGENT_NAME,
  DURATION_BOUNDARIES,
  ERROR_TYPE,
  FINISH_REASONS,
  INPUT_TOKENS,
  OPERATION_NAME,
  OUTPUT_TOKENS,
  PROVIDER_NAME,
  REASONING_TOKENS,
  REQUEST_MODEL,
  RESPONSE_ID,
  RESPONSE_MODEL,
  TOKEN_BOUNDARIES,
  TOKEN_TYPE,
} from './telemetry-names.ts';

export { agentAttributes } from './telemetry-names.ts';
export type { ChatTelemetry, RunTelemetry } from './run-telemetry.ts';

/** Where an agent's spans and metrics go, and whether prompts and completions are recorded. */
export interface AgentTelemetryOptions {
  /** Default: the global tracer `@candor/core` (a no-op unless an SDK is registered). */
  readonly tracer?: Tracer;
  /** Default: the global meter `@candor/core`, taken when the agent is constructed. */
  readonly meter?: Meter;
  /**
   * Record prompts and completions on `chat` spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.system_instructions`). Off by default: they may carry user
   * data. When on, tool-call arguments pass through `redactor`, so secret-named keys are
   * `[REDACTED]`; free text is recorded as the model saw it.
   */
  readonly recordContent?: boolean;
  /** The redactor for recorded content. Default: a `SecretRedactor` with no extra keys. */
  readonly redactor?: SecretRedactor;
}

const NoopMeter = createNoopMeter().constructor;

// The API's no-op tracer provider and tracer: what its global ProxyTracerProvider delegates to
// while no SDK is registered. Neither is exported by name; a fresh proxy hands out both. The
// proxy class is marked deprecated for the API's next major; it is the global provider of every
// 1.x API. (The registry's telemetry makes the same check.)
// eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NoopTracer = NOOP_TRACER_PROVIDER.getTracer('').constructor;

// The global provider's tracer, kept while the provider stays the same: agents are often made
// per request, and the global proxy hands out a new proxy tracer on every `getTracer`, each
// following the provider's current delegate, so one serves them all.
let lastGlobal: { provider: unknown; tracer: Tracer } | undefined;

function globalTracer(provider: unknown): Tracer {
  const last = lastGlobal;
  if (last !== undefined && last.provider === provider) return last.tracer;
  const tracer = trace.getTracer('@candor/core');
  lastGlobal = { provider, tracer };
  return tracer;
}

/** The model a span describes. */
interface ModelIdentity {
  readonly provider: string;
  readonly model: string;
}

/** What ended one model request. */
export interface ChatEnd {
  readonly finishReason: FinishReason | undefined;
  readonly usage: Usage | undefined;
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  /** The turn's parts in order, reasoning included. */
  readonly parts?: readonly AssistantPart[];
  /** The response's id and model, when the provider named them. */
  readonly response?: { readonly id?: string; readonly model?: string };
  readonly error?: unknown;
}

/**
 * The agent's OpenTelemetry side: an `invoke_agent {name}` span per run, a `chat {model}` span
 * per model request under it, the registry's `execute_tool` spans as its children, and the
 * `gen_ai.client.token.usage` and `gen_ai.client.operation.duration` histograms. A broken tracer
 * or meter never changes a run: every call into OpenTelemetry is guarded.
 */
export class AgentTelemetry {
  readonly #tracer: Tracer;
  /**
   * Whether spans would be dropped unseen: an injected no-op tracer never records; the global
   * tracer records once an SDK is registered with the API, which a run sees by asking the global
   * proxy for its delegate (a field read), never by starting a span.
   */
  readonly #tracingOff: () => boolean;
  readonly #tokens: Histogram | undefined;
  readonly #duration: Histogram | undefined;
  readonly #recordContent: boolean;
  readonly #redactor: SecretRedactor | undefined;
  readonly #agentName: string;
  readonly #model: ModelIdentity;

  constructor(
    options: AgentTelemetryOptions,
    agent: { name: string; model: ModelIdentity },
  ) {
    const provider =
      options.tracer === undefined ? trace.getTracerProvider() : undefined;
    this.#tracer = options.tracer ?? globalTracer(provider);
    this.#tracingOff =
      this.#tracer instanceof NoopTracer
        ? () => true
        : // eslint-disable-next-line @typescript-eslint/no-deprecated -- see NOOP_TRACER_PROVIDER
          provider instanceof ProxyTracerProvider
          ? () => provider.getDelegate() === NOOP_TRACER_PROVIDER
          : () => false;
    const meter = options.meter ?? metrics.getMeter('@candor/core');
    let tokens: Histogram | undefined;
    let duration: Histogram | undefined;
    try {
      // The API's no-op meter: then no run builds attribute sets for nothing.
      if (!(meter instanceof NoopMeter)) {
        tokens = meter.createHistogram('gen_ai.client.token.usage', {
          description: 'Number of input and output tokens used.',
          unit: '{token}',
          advice: { explicitBucketBoundaries: TOKEN_BOUNDARIES },
        });
        duration = meter.createHistogram('gen_ai.client.operation.duration', {
          description: 'GenAI operation duration.',
          unit: 's',
          advice: { explicitBucketBoundaries: DURATION_BOUNDARIES },
        });
      }
    } catch {
      // A meter that cannot make histograms leaves the agent without metrics, not broken.
      tokens = undefined;
      duration = undefined;
    }
    this.#tokens = tokens;
    this.#duration = duration;
    this.#recordContent = options.recordContent === true;
    this.#redactor =
      options.redactor ??
      (options.recordContent === true ? new SecretRedactor() : undefined);
    this.#agentName = agent.name;
    this.#model = agent.model;
  }

  #redact(value: unknown): unknown {
    return this.#redactor === undefined ? value : this.#redactor.redact(value);
  }

  /**
   * Starts a run's span; the returned handle starts its chat spans and ends it. `undefined` when
   * there is nothing to record: the span does not record (no SDK, or sampled out) and the meter
   * is the API's no-op. Then the run pays for no telemetry at all.
   */
  startRun(): RunTelemetry | undefined {
    let span: Span | undefined;
    try {
      // Nothing would record: no span is started, and no attribute set is built for it.
      if (this.#tokens === undefined && this.#tracingOff()) return undefined;
      span = this.#tracer.startSpan(`invoke_agent ${this.#agentName}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          [OPERATION_NAME]: 'invoke_agent',
          [AGENT_NAME]: this.#agentName,
          [PROVIDER_NAME]: this.#model.provider,
          [REQUEST_MODEL]: this.#model.model,
        },
      });
    } catch {
      span = undefined;
    }
    if (span?.isRecording() !== true && this.#tokens === undefined) {
      return undefined;
    }
    return new RunTelemetry(this, span);
  }

  /** @internal */
  startChat(parent: Context, request: ChatRequestView): ChatTelemetry {
    let span: Span | undefined;
    try {
      span = this.#tracer.startSpan(
        `chat ${this.#model.model}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [OPERATION_NAME]: 'chat',
            [PROVIDER_NAME]: this.#model.provider,
            [REQUEST_MODEL]: this.#model.model,
          },
        },
        parent,
      );
      if (this.#recordContent && span.isRecording()) {
        span.setAttribute(
          agentAttributes.INPUT_MESSAGES,
          JSON.stringify(this.#redact(conventionMessages(request.messages))),
        );
        if (request.instructions !== undefined)
          span.setAttribute(
            agentAttributes.SYSTEM_INSTRUCTIONS,
            JSON.stringify([{ type: 'text', content: request.instructions }]),
          );
      }
    } catch {
      span = undefined;
    }
    return new ChatTelemetry(this, span, performance.now());
  }

  /** @internal Ends a chat span and records its metrics. */
  endChat(span: Span | undefined, startedAt: number, end: ChatEnd): void {
    const failed = end.error !== undefined ? errorType(end.error) : undefined;
    try {
      const base: Attributes = {
        [OPERATION_NAME]: 'chat',
        [PROVIDER_NAME]: this.#model.provider,
        [REQUEST_MODEL]: this.#model.model,
      };
      this.#duration?.record(
        (performance.now() - startedAt) / 1000,
        failed === undefined ? base : { ...base, [ERROR_TYPE]: failed },
      );
      if (end.usage !== undefined) {
        this.#tokens?.record(end.usage.inputTokens, {
          ...base,
          [TOKEN_TYPE]: 'input',
        });
        this.#tokens?.record(end.usage.outputTokens, {
          ...base,
          [TOKEN_TYPE]: 'output',
        });
      }
    } catch {
      // Metrics are best effort; the run goes on.
    }
    if (span === undefined) return;
    try {
      if (end.usage !== undefined) {
        span.setAttribute(INPUT_TOKENS, end.usage.inputTokens);
        span.setAttribute(OUTPUT_TOKENS, end.usage.outputTokens);
        if (end.usage.reasoningTokens !== undefined)
          span.setAttribute(REASONING_TOKENS, end.usage.reasoningTokens);
      }
      if (end.finishReason !== undefined)
        span.setAttribute(FINISH_REASONS, [end.finishReason]);
      if (end.response?.id !== undefined)
        span.setAttribute(RESPONSE_ID, end.response.id);
      if (end.response?.model !== undefined)
        span.setAttribute(RESPONSE_MODEL, end.response.model);
      if (this.#recordContent && failed === undefined && span.isRecording()) {
        const [output] = conventionMessages([
          {
            role: 'assistant',
            content: end.text,
            toolCalls: end.toolCalls,
            ...(end.parts === undefined ? {} : { parts: end.parts }),
          },
        ]);
        span.setAttribute(
          agentAttributes.OUTPUT_MESSAGES,
          JSON.stringify(this.#redact([output])),
        );
      }
      if (failed !== undefined) {
        span.setAttribute(ERROR_TYPE, failed);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    } catch {
      // A broken span never changes the run.
    }
  }
}
