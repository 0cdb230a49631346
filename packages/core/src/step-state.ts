import {
  type AgentEvent,
  type AgentRunResult,
  type AgentStep,
} from './agent-events.ts';
import { type ChatEnd } from './agent-telemetry.ts';
import { AssistantTurn } from './assistant-turn.ts';
import {
  type ChatMessage,
  type FinishReason,
  type Usage,
} from './chat-model.ts';
import { ModelError } from './model-error.ts';

/** What one model turn of a run gathered: its parts, how it finished, its usage and response. */
export interface StepState {
  readonly turn: AssistantTurn;
  finishReason: FinishReason | undefined;
  usage: Usage | undefined;
  response: { readonly id?: string; readonly model?: string } | undefined;
}

/** A fresh turn's state. */
export function newStepState(): StepState {
  return {
    turn: new AssistantTurn(),
    finishReason: undefined,
    usage: undefined,
    response: undefined,
  };
}

/** A run's running token count, reasoning tokens once any turn reported them. */
export interface UsageTotal {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
}

/** Adds one turn's usage to the run's. */
export function addUsage(total: UsageTotal, usage: Usage | undefined): void {
  if (usage === undefined) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  if (usage.reasoningTokens !== undefined)
    total.reasoningTokens =
      (total.reasoningTokens ?? 0) + usage.reasoningTokens;
}

/** The `step-end` event of a turn. */
export function stepEnd(index: number, state: StepState): AgentEvent {
  return {
    type: 'step-end',
    step: index,
    finishReason: state.finishReason,
    toolCalls: state.turn.calls.length,
    ...(state.usage === undefined ? {} : { usage: state.usage }),
  };
}

/** What the chat span records of a turn. */
export function chatEnd(state: StepState): ChatEnd {
  return {
    finishReason: state.finishReason,
    usage: state.usage,
    text: state.turn.text,
    toolCalls: state.turn.calls,
    parts: state.turn.parts,
    ...(state.response === undefined ? {} : { response: state.response }),
  };
}

/** A model failure as the run's result reports it: kind, message, status and code. */
export function describeModelError(
  error: unknown,
): NonNullable<AgentRunResult['modelError']> {
  if (error instanceof ModelError) {
    return {
      kind: error.kind,
      message: error.message,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.code === undefined ? {} : { code: error.code }),
    };
  }
  return {
    kind: 'unknown',
    message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * A turn that is no answer, or `undefined` for one that is: cut at the output-token limit
 * (`length`), blocked or refused with tool calls in it (`content_filter`: a call the provider
 * stopped on is not one to run), ended in a finish word Candor cannot read (`other`) without
 * tool calls, or with no `finish` event at all (an `incomplete` model error). Unknown is not
 * success. None of its tool calls may run, and a turn with calls is left out of the history,
 * which would otherwise hold calls without results.
 */
export function unfinishedTurn(
  index: number,
  state: StepState,
):
  | {
      readonly step: AgentStep;
      readonly message: ChatMessage | undefined;
      readonly stopReason: 'length' | 'content_filter' | 'model_error';
      readonly extra: Partial<AgentRunResult>;
    }
  | undefined {
  const { turn, finishReason } = state;
  const calls = turn.calls.length;
  let extra: Partial<AgentRunResult> = {};
  if (finishReason === undefined || (finishReason === 'other' && calls === 0)) {
    const error = new ModelError({
      kind: 'incomplete',
      message:
        finishReason === undefined
          ? 'The model stream ended without a finish event: the answer is incomplete.'
          : 'The model ended its answer for a reason it did not name (finish reason other): the answer may be incomplete.',
    });
    extra = { modelError: describeModelError(error) };
  } else if (
    finishReason !== 'length' &&
    !(finishReason === 'content_filter' && calls > 0)
  )
    return undefined;
  return {
    step: { index, text: turn.text, finishReason, toolCalls: [] },
    message:
      calls === 0
        ? {
            role: 'assistant',
            content: turn.text,
            toolCalls: [],
            parts: turn.finishedParts([]),
          }
        : undefined,
    stopReason:
      finishReason === 'length' || finishReason === 'content_filter'
        ? finishReason
        : 'model_error',
    extra,
  };
}
