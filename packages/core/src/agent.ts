import {
  guardLogger,
  type Logger,
  outcomeOf,
  SecretRedactor,
  type ToolExecutor,
  toolResultForModel,
  type ToolResultForModelOptions,
} from '@candor/tools';
import {
  type AgentEvent,
  type AgentRunResult,
  type AgentStep,
  type AgentToolCall,
  type StopReason,
} from './agent-events.ts';
import {
  type CallSettings,
  type ChatMessage,
  type ChatModel,
  type FinishReason,
  type Usage,
} from './chat-model.ts';
import { AssistantTurn } from './assistant-turn.ts';
import { checkCallSettings } from './call-settings.ts';
import {
  AgentTelemetry,
  type AgentTelemetryOptions,
  type ChatEnd,
  type ChatTelemetry,
  type RunTelemetry,
} from './agent-telemetry.ts';
import { ErrorBudget, type ErrorBudgetOptions } from './error-budget.ts';
import { ModelError } from './model-error.ts';

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** The model that plans each step: `openaiCompatible`, `anthropic`, `gemini`, `scriptedModel` (from `@candor/core/testing`) or any {@link ChatModel}. */
  readonly model: ChatModel;
  /** A `ToolRegistry`, or any {@link ToolExecutor} (a registry filled from MCP, say). */
  readonly registry: ToolExecutor;
  /** The system instructions sent with every model turn. */
  readonly instructions?: string;
  /** Model turns in one run. Default 10. */
  readonly maxSteps?: number;
  /** When the run stops because tool calls keep failing: total errors, consecutive errors and repeats of one code (defaults 5, 3 and 2). */
  readonly errorBudget?: ErrorBudgetOptions;
  /** pino-compatible; silent by default. */
  readonly logger?: Logger;
  /**
   * How tool results are shown to the model: the error-detail budget (`maxDetailBytes`, 4096
   * bytes per stream by default) and the redactor that censors secret-looking keys, which also
   * censors the arguments in `tool-start` events. Pass the same extra keys as your registry.
   */
  readonly toolResult?: ToolResultForModelOptions;
  /** The agent's name in traces (`invoke_agent {name}`, `gen_ai.agent.name`). Default `agent`. */
  readonly name?: string;
  /**
   * OpenTelemetry spans and metrics of each run; `false` turns them off. Default: the global
   * tracer and meter, which are no-ops until the application registers an SDK.
   */
  readonly telemetry?: AgentTelemetryOptions | false;
}

/** Options of one run. */
export interface RunOptions {
  /** Cancels the run: the model stream and the tool call in flight are aborted. */
  readonly signal?: AbortSignal;
  /**
   * Call settings for every model turn of this run, laid over the model's own key by key.
   * Checked when the run starts: a wrong type or range rejects `run()` with a `TypeError` or
   * `RangeError` before anything is sent.
   */
  readonly settings?: CallSettings;
}

// Shared by every agent without a redactor of its own: it has no options, and its verdict per
// key, cached, is then warm from an agent's first run instead of judged again for each new agent.
const defaultRedactor = new SecretRedactor();

interface StepState {
  readonly turn: AssistantTurn;
  finishReason: FinishReason | undefined;
  usage: Usage | undefined;
  response: { readonly id?: string; readonly model?: string } | undefined;
}

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
    const usage: {
      inputTokens: number;
      outputTokens: number;
      reasoningTokens?: number;
    } = {
      inputTokens: 0,
      outputTokens: 0,
    };
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
      const state: StepState = {
        turn: new AssistantTurn(),
        finishReason: undefined,
        usage: undefined,
        response: undefined,
      };
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
      }
      if (state.usage) {
        usage.inputTokens += state.usage.inputTokens;
        usage.outputTokens += state.usage.outputTokens;
        if (state.usage.reasoningTokens !== undefined)
          usage.reasoningTokens =
            (usage.reasoningTokens ?? 0) + state.usage.reasoningTokens;
      }
      // Only the registry reads the raw arguments; every other surface (events, steps, the
      // history sent back to the model, the run's messages) reads them censored, once.
      const calls = turn.calls;
      const shownCalls = calls.map((call) => {
        const censored = censorArguments(call.arguments, this.#redactor);
        return censored === call.arguments
          ? call
          : { ...call, arguments: censored };
      });
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
      const toolCalls: AgentToolCall[] = shownCalls.map((call, position) => {
        const response = responses[position];
        if (response === undefined)
          throw new Error('registry.call returned nothing');
        return {
          call,
          response,
          outcome: outcomeOf(response),
          sentToModel: toolResultForModel(
            response,
            call.name,
            this.#toolResult,
          ),
        };
      });
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
      messages.push({
        role: 'tool',
        results: toolCalls.map((entry) => ({
          callId: entry.call.id,
          toolName: entry.call.name,
          content: entry.sentToModel.content,
          isError: entry.sentToModel.isError,
          ...(entry.sentToModel.isError && entry.response.status === 'error'
            ? { code: entry.response.errorInfo.code }
            : {}),
        })),
      });
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

/** The arguments text with secret-looking values censored; unparsable text carries no keys. */
function censorArguments(text: string, redactor: SecretRedactor): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return text;
  }
  return redactor.secretValues(decoded).length === 0
    ? text
    : JSON.stringify(redactor.redact(decoded));
}

/** How one run's loop goes. */
interface LoopOptions {
  /** The run's span, when telemetry records one. */
  readonly traced: RunTelemetry | undefined;
  /** `false` yields only the done event (for run()); the loop does the same work either way. */
  readonly everyEvent: boolean;
}

/**
 * The history as a next turn can send it: a last assistant turn whose tool calls never got
 * results (the run was aborted while they ran) is left out, since providers reject a tool call
 * with no result after it.
 */
function replayable(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const last = messages.at(-1);
  return last?.role === 'assistant' && last.toolCalls.length > 0
    ? messages.slice(0, -1)
    : [...messages];
}

// A function, so TypeScript does not narrow `aborted` across awaits: it changes meanwhile.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function stepEnd(index: number, state: StepState): AgentEvent {
  return {
    type: 'step-end',
    step: index,
    finishReason: state.finishReason,
    toolCalls: state.turn.calls.length,
    ...(state.usage === undefined ? {} : { usage: state.usage }),
  };
}

function describeModelError(
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

/** What the chat span records of a turn. */
function chatEnd(state: StepState): ChatEnd {
  return {
    finishReason: state.finishReason,
    usage: state.usage,
    text: state.turn.text,
    toolCalls: state.turn.calls,
    ...(state.response === undefined ? {} : { response: state.response }),
  };
}

/** The run's options with its settings checked and copied once, before anything is sent. */
function checkedRunOptions(options: RunOptions): RunOptions {
  if (options.settings === undefined) return options;
  return {
    ...options,
    settings: checkCallSettings(options.settings, 'Agent.run settings'),
  };
}
