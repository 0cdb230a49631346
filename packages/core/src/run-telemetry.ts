import {
  context,
  type Context,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { type AgentRunResult } from './agent-events.ts';
import { type AgentTelemetry, type ChatEnd } from './agent-telemetry.ts';
import { type ChatMessage } from './chat-model.ts';
import { errorType } from './error-type.ts';
import {
  agentAttributes,
  ERROR_TYPE,
  INPUT_TOKENS,
  OUTPUT_TOKENS,
  REASONING_TOKENS,
} from './telemetry-names.ts';

/** The part of a chat request the telemetry reads. */
export interface ChatRequestView {
  readonly instructions?: string;
  readonly messages: readonly ChatMessage[];
}

/** One model request's span. */
export class ChatTelemetry {
  readonly #owner: AgentTelemetry;
  readonly #span: Span | undefined;
  readonly #startedAt: number;
  #ended = false;

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

  /** Ends the span with what the model answered, or how it failed; once. */
  end(end: ChatEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#owner.endChat(this.#span, this.#startedAt, end);
  }

  /**
   * Ends the span if nothing ended it: the caller stopped reading the run mid-turn. A span never
   * ended is never exported, so the turn would vanish from the trace.
   */
  abandon(end: ChatEnd): void {
    if (this.#ended) return;
    try {
      this.#span?.setAttribute(agentAttributes.STOP_REASON, 'abandoned');
    } catch {
      // Best effort.
    }
    this.end(end);
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
        if (result.usage.reasoningTokens !== undefined)
          span.setAttribute(REASONING_TOKENS, result.usage.reasoningTokens);
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
          : result?.stopReason === 'error_budget' ||
              result?.stopReason === 'content_filter' ||
              result?.stopReason === 'length'
            ? result.stopReason
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
