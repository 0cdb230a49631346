import {
  type Logger,
  type ToolExecutor,
  type ToolResultForModelOptions,
} from '@candor/tools';
import { type AgentTelemetryOptions } from './agent-telemetry.ts';
import { checkCallSettings } from './call-settings.ts';
import { type CallSettings, type ChatModel } from './chat-model.ts';
import { type ErrorBudgetOptions } from './error-budget.ts';

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

/** The run's options with its settings checked and copied once, before anything is sent. */
export function checkedRunOptions(options: RunOptions): RunOptions {
  if (options.settings === undefined) return options;
  return {
    ...options,
    settings: checkCallSettings(options.settings, 'Agent.run settings'),
  };
}
