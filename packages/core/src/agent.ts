import {
  guardLogger,
  type Logger,
  SecretRedactor,
  type ToolExecutor,
  type ToolResultForModelOptions,
} from '@candor/tools';
import {
  type AgentEvent,
  type AgentRunResult,
  type AgentStep,
  type StopReason,
} from './agent-events.ts';
import { type ChatMessage, type ChatModel } from './chat-model.ts';
import {
  type AgentOptions,
  checkedRunOptions,
  type RunOptions,
} from './agent-options.ts';
import {
  AgentTelemetry,
  type ChatTelemetry,
  type RunTelemetry,
} from './agent-telemetry.ts';
import { agentToolCalls, toolMessage } from './agent-tool-calls.ts';
import { ErrorBudget, type ErrorBudgetOptions } from './error-budget.ts';

export type { AgentOptions, RunOptions } from './agent-options.ts';
import { censoredCalls, replayable } from './replayable-messages.ts';
import {
  addUsage,
  chatEnd,
  describeModelError,
  newStepState,
  stepEnd,
  unfinishedTurn,
  type UsageTotal,
} from './step-state.ts';

// Shared by every agent without a redactor of its own: it has no options, and its verdict per
// key, cached, is then warm from an agent's first run instead of judged again for each new agent.
const defaultRedactor = new SecretRedactor();

/**
 * The agent loop. Every tool call goes through `registry.call`, and each outcome is told to the
 * model in words it can act on: a partial result is flagged, an error carries its code, a denial
 * says the call did not run, and an error budget stops a loop that only fails.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model: openaiCompatible({ baseURL, apiKey, model: 'gpt-4o-mini' }), registry });
 * const { text, stopReason } = await agent.run('What is 2 + 3 * 4?');
 * ```
 */
export class Agent {
  readonly #model: ChatModel;
  readonly #registry: ToolExecutor;
  readonly #instructions: string | undefined;
  readonly #maxSteps: number;
  readonly #budget: ErrorBudgetOptions;
  readonly #logger: Logger;
  readonly #toolResult: ToolResultForModelOptions;
  readonly #redactor: SecretRedactor;
  readonly #telemetry: AgentTelemetry | undefined;

  constructor(options: AgentOptions) {
    if (typeof options.model.stream !== 'function') {
      throw new TypeError(
        'Agent: model must be a ChatModel with a stream() method',
      );
    }
    if (
      typeof options.registry.call !== 'function' ||
      typeof options.registry.specs !== 'function'
    ) {
      throw new TypeError(
        'Agent: registry must be a ToolRegistry or a ToolExecutor with specs() and call()',
      );
    }
    const maxSteps = options.maxSteps ?? 10;
    if (!Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new RangeError(
        `Agent: maxSteps must be an integer of at least 1, got ${String(maxSteps)}`,
      );
    }
    // Validates the budget's numbers now rather than at the first run.
    new ErrorBudget(options.errorBudget);
    this.#model = options.model;
    this.#registry = options.registry;
    this.#instructions = options.instructions;
    this.#maxSteps = maxSteps;
    this.#budget = options.errorBudget ?? {};
    this.#redactor = options.toolResult?.redactor ?? defaultRedactor;
    this.#toolResult = { ...options.toolResult, redactor: this.#redactor };
    // A logger that throws loses its line, never a run's result.
    this.#logger = guardLogger(options.logger, { component: 'agent' });
    const name = options.name ?? 'agent';
    if (typeof name !== 'string' || name === '') {
      throw new TypeError('Agent: name must be a non-empty string');
    }
    this.#telemetry =
      options.telemetry === false
        ? undefined
        : new AgentTelemetry(options.telemetry ?? {}, {
            name,
            model: options.model,
          });
  }

  /** Runs to the end and returns the result. Never rejects on tool or model failures. */
  async run(
    input: string | readonly ChatMessage[],
    options: RunOptions = {},
  ): Promise<AgentRunResult> {
    // Straight from the loop, not through stream(), and only the done event: each event a
    // generator yields costs its own promises and turns, for events nobody here reads.
    options = checkedRunOptions(options);
    const traced = this.#telemetry?.startRun();
    const events =
      traced === undefined
        ? this.#stream(input, options, { traced, everyEvent: false })
        : this.#traced(input, options, { traced, everyEvent: false });
    for await (const event of events) {
      if (event.type === 'done') return event.result;
    }
    throw new Error('Agent.stream ended without a done event');
  }

  /** The run as typed events: text deltas, tool starts and ends, step ends, then done. */
  async *stream(
    input: string | readonly ChatMessage[],
    options: RunOptions = {},
  ): AsyncGenerator<AgentEvent, void, undefined> {
    options = checkedRunOptions(options);
    const traced = this.#telemetry?.startRun();
    yield* traced === undefined
      ? this.#stream(input, options, { traced, everyEvent: true })
      : this.#traced(input, options, { traced, everyEvent: true });
  }

  /** The run's events inside its span, which ends with the run. */
  async *#traced(
    input: string | readonly ChatMessage[],
    options: RunOptions,
    loop: LoopOptions & { readonly traced: RunTelemetry },
  ): AsyncGenerator<AgentEvent, void, undefined> {
    let result: AgentRunResult | undefined;
    try {
      for await (const event of this.#stream(input, options, loop)) {
        if (event.type === 'done') result = event.result;
        yield event;
      }
    } finally {
      // Also when the caller stops iterating mid-run: the span ends as `abandoned` then.
      loop.traced.end(result);
    }
  }

  /** The loop. */
  async *#stream(
    input: string | readonly ChatMessage[],
    options: RunOptions,
    { traced, everyEvent }: LoopOptions,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const signal = options.signal;
    const settings = options.settings;
    const messages: ChatMessage[] =
      typeof input === 'string'
        ? [{ role: 'user', content: input }]
        : [...input];
    const budget = new ErrorBudget(this.#budget);
    const steps: AgentStep[] = [];
    const usage: UsageTotal = { inputTokens: 0, outputTokens: 0 };
    const finish = (
      stopReason: StopReason,
      extra: Partial<AgentRunResult> = {},
    ): AgentEvent => {
      const result: AgentRunResult = {
        text: steps.at(-1)?.text ?? '',
        stopReason,
        steps,
        usage: { ...usage },
        messages: replayable(messages),
        ...extra,
      };
      this.#logger.info(
        { stopReason, steps: steps.length },
        'agent run finished',
      );
      return { type: 'done', result };
    };

    for (let index = 1; index <= this.#maxSteps; index++) {
      if (isAborted(signal)) {
        yield finish('aborted');
        return;
      }
      let chat: ChatTelemetry | undefined;
      const state = newStepState();
      const turn = state.turn;
      try {
        const tools = this.#registry.specs({ hideOpenCircuits: true });
        chat = traced?.startChat({
          ...(this.#instructions === undefined
            ? {}
            : { instructions: this.#instructions }),
          messages,
        });
        const request = {
          ...(this.#instructions === undefined
            ? {}
            : { instructions: this.#instructions }),
          messages: [...messages],
          tools,
          ...(settings === undefined ? {} : { settings }),
          ...(signal === undefined ? {} : { signal }),
          ...(chat === undefined ? {} : { onRetry: chat.retry.bind(chat) }),
        };
        for await (const event of this.#model.stream(request)) {
          if (event.type === 'finish') {
            state.finishReason = event.finishReason;
            state.usage = event.usage;
            state.response = event.response;
            continue;
          }
          turn.add(event);
          if (everyEvent && event.type === 'text-delta') {
            yield { type: 'text-delta', step: index, text: event.text };
          }
        }
        chat?.end(chatEnd(state));
      } catch (error: unknown) {
        // The error ends the span, once; `finally` below then finds it ended.
        chat?.end({ ...chatEnd(state), error });
        if (isAborted(signal)) {
          steps.push({
            index,
            text: turn.text,
            finishReason: undefined,
            toolCalls: [],
          });
          yield finish('aborted');
          return;
        }
        steps.push({
          index,
          text: turn.text,
          finishReason: undefined,
          toolCalls: [],
        });
        yield finish('model_error', { modelError: describeModelError(error) });
        return;
      } finally {
        // The caller stopped reading mid-turn (a `break` out of stream()): the chat span is
        // ended too, or it would never be exported.
        chat?.abandon(chatEnd(state));
      }
      addUsage(usage, state.usage);
      const calls = turn.calls;
      const unfinished = unfinishedTurn(index, state);
      if (unfinished !== undefined) {
        // No answer: none of its calls runs (one may be half-sent).
        steps.push(unfinished.step);
        if (unfinished.message) messages.push(unfinished.message);
        if (everyEvent) yield stepEnd(index, state);
        yield finish(unfinished.stopReason, unfinished.extra);
        return;
      }
      const shownCalls = censoredCalls(calls, this.#redactor);
      messages.push({
        role: 'assistant',
        content: turn.text,
        toolCalls: shownCalls,
        parts: turn.finishedParts(shownCalls),
      });
      if (calls.length === 0) {
        steps.push({
          index,
          text: turn.text,
          finishReason: state.finishReason,
          toolCalls: [],
        });
        if (everyEvent) yield stepEnd(index, state);
        // A blocked prompt or answer is no completion, however empty and quiet it ends.
        yield finish(
          state.finishReason === 'content_filter'
            ? 'content_filter'
            : 'completed',
        );
        return;
      }

      for (const call of everyEvent ? shownCalls : []) {
        yield {
          type: 'tool-start',
          step: index,
          callId: call.id,
          toolName: call.name,
          arguments: call.arguments,
        };
      }
      // Concurrently, through the one seam; results go back in call order.
      const callAll = () =>
        Promise.all(
          calls.map((call) =>
            this.#registry.call(call.name, call.arguments, {
              callId: call.id,
              ...(signal === undefined ? {} : { signal }),
            }),
          ),
        );
      // With the run's span active, the registry's execute_tool spans are its children.
      const responses = await (traced === undefined
        ? callAll()
        : traced.within(callAll));
      if (isAborted(signal)) {
        // A cancelled call is the caller's doing, never a tool error to show the model.
        steps.push({
          index,
          text: turn.text,
          finishReason: state.finishReason,
          toolCalls: [],
        });
        yield finish('aborted');
        return;
      }
      const toolCalls = agentToolCalls(shownCalls, responses, this.#toolResult);
      for (const entry of toolCalls) {
        const code =
          entry.response.status === 'error'
            ? entry.response.errorInfo.code
            : undefined;
        if (everyEvent) {
          yield {
            type: 'tool-end',
            step: index,
            callId: entry.call.id,
            toolName: entry.call.name,
            outcome: entry.outcome,
            ...(code === undefined ? {} : { code }),
            response: entry.response,
            sentToModel: entry.sentToModel,
          };
        }
        budget.record({
          outcome: entry.outcome,
          toolName: entry.call.name,
          callId: entry.call.id,
          arguments: entry.call.arguments,
          ...(code === undefined ? {} : { code }),
          ...(entry.response.status === 'error'
            ? { message: entry.response.errorInfo.message }
            : {}),
        });
      }
      messages.push(toolMessage(toolCalls));
      steps.push({
        index,
        text: turn.text,
        finishReason: state.finishReason,
        toolCalls,
      });
      if (everyEvent) yield stepEnd(index, state);
      const exhausted = budget.exhausted;
      if (exhausted !== undefined) {
        yield finish('error_budget', {
          budget: { exhausted, lastErrors: budget.lastErrors() },
        });
        return;
      }
    }
    yield finish('max_steps');
  }
}

/** How one run's loop goes. */
interface LoopOptions {
  /** The run's span, when telemetry records one. */
  readonly traced: RunTelemetry | undefined;
  /** `false` yields only the done event (for run()); the loop does the same work either way. */
  readonly everyEvent: boolean;
}

// A function, so TypeScript does not narrow `aborted` across awaits: it changes meanwhile.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
