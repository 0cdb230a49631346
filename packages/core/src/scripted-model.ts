import {
  type ChatModel,
  type ChatRequest,
  type ModelEvent,
  type ModelToolCall,
} from './chat-model.ts';
import { argumentsText } from './content-parts.ts';
import { ModelError } from './model-error.ts';

/** One scripted model turn: text, tool calls, or both. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly toolCalls?: readonly {
    readonly name: string;
    /** An object is sent as JSON; a string is sent as is, so malformed JSON can be scripted. */
    readonly arguments?: unknown;
    readonly id?: string;
  }[];
}

/** A turn, or a function that picks the turn from what the model received. */
export type ScriptedStep =
  ScriptedTurn | ((request: ChatRequest) => ScriptedTurn);

/** A scripted model that also shows what it received, for tests and demos. */
export interface ScriptedModel extends ChatModel {
  /** Every request the model received, in order. */
  readonly requests: readonly ChatRequest[];
}

/**
 * An in-process, deterministic model. Each request consumes the next step; running out of steps
 * is a `ModelError`, so a script that is too short fails loudly.
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 3 * 4' } }] },
 *   (request) => ({ text: `The answer is ${lastToolResult(request)}` }),
 * ]);
 * ```
 */
export function scriptedModel(steps: readonly ScriptedStep[]): ScriptedModel {
  const requests: ChatRequest[] = [];
  let next = 0;
  let callCounter = 0;
  return {
    provider: 'scripted',
    model: 'scripted',
    requests,
    async *stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      await Promise.resolve();
      requests.push(request);
      if (request.signal?.aborted === true) {
        throw new ModelError({
          kind: 'aborted',
          message: 'The request was aborted.',
        });
      }
      const step = steps[next];
      next += 1;
      if (step === undefined) {
        throw new ModelError({
          kind: 'script',
          message: `The scripted model has no step ${next} (the script has ${steps.length}).`,
        });
      }
      const turn = typeof step === 'function' ? step(request) : step;
      if (turn.text !== undefined && turn.text !== '')
        yield { type: 'text-delta', text: turn.text };
      const calls: ModelToolCall[] = (turn.toolCalls ?? []).map((call) => {
        callCounter += 1;
        return {
          id: call.id ?? `call_${callCounter}`,
          name: call.name,
          arguments: argumentsText(call.arguments),
        };
      });
      for (const call of calls) yield { type: 'tool-call', call };
      yield {
        type: 'finish',
        finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
      };
    },
  };
}

/** The content of the last tool result the model received, for scripted reactions. */
export function lastToolResult(request: ChatRequest): string | undefined {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message?.role === 'tool') return message.results.at(-1)?.content;
  }
  return undefined;
}
