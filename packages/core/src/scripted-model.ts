import {
  type ChatModel,
  type ChatRequest,
  type FinishReason,
  type ModelEvent,
  type ProviderData,
  type Usage,
} from './chat-model.ts';
import { argumentsText } from './content-parts.ts';
import { ModelError } from './model-error.ts';

/**
 * One block of scripted reasoning: its text (empty for a block shown without it), `redacted`
 * for one the provider sends encrypted only, and the provider data a wire would need back
 * (`{ anthropic: { signature } }`, `{ google: { thoughtSignature } }`, …).
 */
export interface ScriptedReasoningBlock {
  readonly text?: string;
  readonly redacted?: boolean;
  readonly providerData?: ProviderData;
}

/** One scripted model turn: reasoning, text, tool calls, or any of them. */
export interface ScriptedTurn {
  /** Reasoning blocks, streamed before the text, kept in the turn's `parts` in order. */
  readonly reasoning?: readonly ScriptedReasoningBlock[];
  readonly text?: string;
  /** Provider data for the text part (a Gemini text signature, say). */
  readonly textProviderData?: ProviderData;
  /** Default: `tool_calls` with calls, else `stop`; `content_filter` scripts a blocked answer. */
  readonly finishReason?: FinishReason;
  readonly usage?: Usage;
  readonly toolCalls?: readonly {
    readonly name: string;
    /** An object is sent as JSON; a string is sent as is, so malformed JSON can be scripted. */
    readonly arguments?: unknown;
    readonly id?: string;
    readonly providerData?: ProviderData;
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
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      // Played on the first next(), as a generator's body would run.
      const play = (events: ModelEvent[]): void => {
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
        for (const block of turn.reasoning ?? []) {
          if (block.text !== undefined && block.text !== '')
            events.push({ type: 'reasoning-delta', text: block.text });
          events.push({
            type: 'reasoning-end',
            ...(block.redacted === true ? { redacted: true } : {}),
            ...(block.providerData === undefined
              ? {}
              : { providerData: block.providerData }),
          });
        }
        if (turn.text !== undefined && turn.text !== '') {
          events.push({ type: 'text-delta', text: turn.text });
        }
        if (turn.textProviderData !== undefined)
          events.push({
            type: 'text-end',
            providerData: turn.textProviderData,
          });
        let calls = 0;
        for (const call of turn.toolCalls ?? []) {
          callCounter += 1;
          calls += 1;
          events.push({
            type: 'tool-call',
            call: {
              id: call.id ?? `call_${callCounter}`,
              name: call.name,
              arguments: argumentsText(call.arguments),
              ...(call.providerData === undefined
                ? {}
                : { providerData: call.providerData }),
            },
          });
        }
        events.push({
          type: 'finish',
          finishReason:
            turn.finishReason ?? (calls > 0 ? 'tool_calls' : 'stop'),
          ...(turn.usage === undefined ? {} : { usage: turn.usage }),
        });
      };
      return new TurnEvents(play);
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

/**
 * One scripted turn's events, one per `next()`, each an already settled promise: the events a
 * model streams, without an async generator's promises and turns per event (the scripted model
 * runs in every benchmark of the agent loop, where its own cost should be close to nothing).
 * A step that throws rejects the `next()` after the events made before the throw, then ends.
 */
class TurnEvents implements AsyncIterableIterator<ModelEvent> {
  readonly #play: (events: ModelEvent[]) => void;
  #events: ModelEvent[] | undefined;
  #failure: { readonly error: unknown } | undefined;
  #at = 0;

  constructor(play: (events: ModelEvent[]) => void) {
    this.#play = play;
  }

  /**
   * Itself, as a generator is: iterating one stream again goes on where it stopped (nothing, once
   * it ended) and never plays another step.
   */
  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ModelEvent>> {
    if (this.#events === undefined) {
      this.#events = [];
      try {
        this.#play(this.#events);
      } catch (error: unknown) {
        this.#failure = { error };
      }
    }
    const event = this.#events[this.#at];
    if (event !== undefined) {
      this.#at += 1;
      return Promise.resolve({ done: false, value: event });
    }
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      // The step's own thrown value, as a generator's next() would reject with it.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(failure.error);
    }
    return Promise.resolve({ done: true, value: undefined });
  }

  return(): Promise<IteratorResult<ModelEvent>> {
    // A consumer that stops early: nothing more is handed out.
    this.#end();
    return Promise.resolve({ done: true, value: undefined });
  }

  /** As a generator thrown into: nothing more is handed out, and the error comes back. */
  throw(error?: unknown): Promise<IteratorResult<ModelEvent>> {
    this.#end();
    // The caller's own value, as a generator's throw() rejects with it.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return Promise.reject(error);
  }

  #end(): void {
    this.#events = [];
    this.#failure = undefined;
  }
}
