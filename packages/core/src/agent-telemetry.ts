import { SecretRedactor } from '@candor/tools';
import {
  type Attributes,
  context,
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
import { type AgentRunResult } from './agent-events.ts';
import {
  type ChatMessage,
  type FinishReason,
  type ModelToolCall,
  type Usage,
} from './chat-model.ts';
import { ModelError } from './model-error.ts';

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

// Names from the OpenTelemetry GenAI semantic conventions (status Development), copied rather
// than imported from the incubating entry point, as the JS SIG advises for unstable names:
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/
const OPERATION_NAME = 'gen_ai.operation.name';
const PROVIDER_NAME = 'gen_ai.provider.name';
const REQUEST_MODEL = 'gen_ai.request.model';
const AGENT_NAME = 'gen_ai.agent.name';
const INPUT_TOKENS = 'gen_ai.usage.input_tokens';
const OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
const FINISH_REASONS = 'gen_ai.response.finish_reasons';
const TOKEN_TYPE = 'gen_ai.token.type';
const ERROR_TYPE = 'error.type';

/** Attribute names of the agent's spans, GenAI convention names and Candor's own. */
export const agentAttributes = Object.freeze({
  OPERATION_NAME,
  PROVIDER_NAME,
  REQUEST_MODEL,
  AGENT_NAME,
  INPUT_TOKENS,
  OUTPUT_TOKENS,
  FINISH_REASONS,
  ERROR_TYPE,
  INPUT_MESSAGES: 'gen_ai.input.messages',
  OUTPUT_MESSAGES: 'gen_ai.output.messages',
  SYSTEM_INSTRUCTIONS: 'gen_ai.system_instructions',
  STOP_REASON: 'candor.agent.stop_reason',
  BUDGET_EXHAUSTED: 'candor.agent.error_budget.exhausted',
  RETRY_ATTEMPT: 'candor.retry.attempt',
  RETRY_DELAY_MS: 'candor.retry.delay_ms',
});

const TOKEN_BOUNDARIES = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
  16777216, 67108864,
];
const DURATION_BOUNDARIES = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
  40.96, 81.92,
];
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
  /** The response's id and model, when the provider named them. */
  readonly response?: { readonly id?: string; readonly model?: string };
  readonly error?: unknown;
}

function errorType(error: unknown): string {
  if (error instanceof ModelError)
    return error.status === undefined ? error.kind : String(error.status);
  return error instanceof Error ? error.name : 'unknown';
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The conversation in the conventions' message shape, before redaction. */
function conventionMessages(messages: readonly ChatMessage[]): unknown[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'user':
        return {
          role: 'user',
          parts: [{ type: 'text', content: message.content }],
        };
      case 'assistant':
        return {
          role: 'assistant',
          parts: [
            ...(message.content === ''
              ? []
              : [{ type: 'text', content: message.content }]),
            ...message.toolCalls.map((call) => ({
              type: 'tool_call',
              id: call.id,
              name: call.name,
              arguments: parsedArguments(call.arguments),
            })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          parts: message.results.map((result) => ({
            type: 'tool_call_response',
            id: result.callId,
            response: result.content,
          })),
        };
    }
  });
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
      }
      if (end.finishReason !== undefined)
        span.setAttribute(FINISH_REASONS, [end.finishReason]);
      if (this.#recordContent && failed === undefined && span.isRecording()) {
        const [output] = conventionMessages([
          {
            role: 'assistant',
            content: end.text,
            toolCalls: end.toolCalls,
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

/** The part of a chat request the telemetry reads. */
interface ChatRequestView {
  readonly instructions?: string;
  readonly messages: readonly ChatMessage[];
}

/** One model request's span. */
export class ChatTelemetry {
  readonly #owner: AgentTelemetry;
  readonly #span: Span | undefined;
  readonly #startedAt: number;

  /** @internal */
  constructor(
    owner: AgentTelemetry,
    span: Span | undefined,
    startedAt: number,
  ) {
    this.#owner = owner;
    this.#span = span;
    this.#startedAt = startedAt;
  }

  /** A retry of this request, as a span event. */
  retry(info: { attempt: number; error: unknown; delayMs: number }): void {
    try {
      this.#span?.addEvent('retry', {
        [agentAttributes.RETRY_ATTEMPT]: info.attempt,
        [agentAttributes.RETRY_DELAY_MS]: info.delayMs,
        [ERROR_TYPE]: errorType(info.error),
      });
    } catch {
      // Best effort.
    }
  }

  /** Ends the span with what the model answered, or how it failed. */
  end(end: ChatEnd): void {
    this.#owner.endChat(this.#span, this.#startedAt, end);
  }
}

/** One run's span. */
export class RunTelemetry {
  readonly #owner: AgentTelemetry;
  readonly #span: Span | undefined;
  readonly #context: Context;

  /** @internal */
  constructor(owner: AgentTelemetry, span: Span | undefined) {
    this.#owner = owner;
    this.#span = span;
    let active = context.active();
    try {
      if (span !== undefined) active = trace.setSpan(active, span);
    } catch {
      // Without the context API, children start where they would have anyway.
    }
    this.#context = active;
  }

  /** Starts the span of one model request under the run. */
  startChat(request: ChatRequestView): ChatTelemetry {
    return this.#owner.startChat(this.#context, request);
  }

  /** Runs `work` with the run's span active, so the registry's `execute_tool` spans are children. */
  within<T>(work: () => T): T {
    return context.with(this.#context, work);
  }

  /** Ends the run's span with its stop reason; `undefined` when the caller left mid-run. */
  end(result: AgentRunResult | undefined): void {
    const span = this.#span;
    if (span === undefined) return;
    try {
      const stopReason = result?.stopReason ?? 'abandoned';
      span.setAttribute(agentAttributes.STOP_REASON, stopReason);
      if (result?.usage !== undefined) {
        span.setAttribute(INPUT_TOKENS, result.usage.inputTokens);
        span.setAttribute(OUTPUT_TOKENS, result.usage.outputTokens);
      }
      if (result?.budget !== undefined)
        span.setAttribute(
          agentAttributes.BUDGET_EXHAUSTED,
          result.budget.exhausted,
        );
      const failure =
        result?.stopReason === 'model_error'
          ? ((result.modelError?.status === undefined
              ? result.modelError?.kind
              : String(result.modelError.status)) ?? 'model_error')
          : result?.stopReason === 'error_budget'
            ? 'error_budget'
            : undefined;
      if (failure !== undefined) {
        span.setAttribute(ERROR_TYPE, failure);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    } catch {
      // A broken span never changes the run.
    }
  }
}
