import { randomUUID } from 'node:crypto';
import { type ToolErrorCode } from '@candor/errors';
import { type ToolRegistry } from '@candor/registry';
import {
  adapterTools,
  outcomeOf,
  type ToolOutcome,
  type ToolResponse,
  toolResultForModel,
} from '@candor/tools';
import { ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool } from '@langchain/core/tools';

/** The `artifact` of every `ToolMessage` a Candor tool returns: for code, never for the model. */
export interface CandorArtifact {
  /** success, partial, error or denied. */
  readonly outcome: ToolOutcome;
  /** The error's code; absent on success and partial. */
  readonly code?: ToolErrorCode;
  /** The tool's structured data, when it returned any. */
  readonly data?: unknown;
  /** The whole response, as the registry returned it. */
  readonly response: ToolResponse;
}

/**
 * The `ToolMessage` for one response: `content` is what `toolResultForModel` says (an error
 * starts with its code, a denial says the call was NOT executed), `status` is `'error'` exactly
 * when `toolResultForModel` says `isError` (every error code, the open circuit; a denial is not the
 * tool failing, so it is `'success'` with `artifact.outcome` `'denied'`), and the artifact carries
 * the outcome, the code and the data.
 */
export function toolMessageFor(
  response: ToolResponse,
  options: { readonly toolName: string; readonly toolCallId: string },
): ToolMessage {
  const { content, isError } = toolResultForModel(response, options.toolName);
  const artifact: CandorArtifact = {
    outcome: outcomeOf(response),
    ...(response.status === 'error' ? { code: response.errorInfo.code } : {}),
    ...('data' in response ? { data: response.data } : {}),
    response,
  };
  return new ToolMessage({
    content,
    status: isError ? 'error' : 'success',
    artifact,
    tool_call_id: options.toolCallId,
    name: options.toolName,
  });
}

/** The tool call's id, when LangChain passed one in the run config (ToolNode and createAgent do). */
function toolCallIdOf(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  try {
    const call: unknown = (config as { toolCall?: unknown }).toolCall;
    if (typeof call !== 'object' || call === null) return undefined;
    const id: unknown = (call as { id?: unknown }).id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    // A config whose getter throws has no usable id; the call still runs, with one of its own.
    return undefined;
  }
}

function signalOf(config: unknown): AbortSignal | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  try {
    const signal: unknown = (config as { signal?: unknown }).signal;
    return signal instanceof AbortSignal ? signal : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The registry's tools as LangChain structured tools, for a LangGraph `ToolNode`, `createAgent`
 * or `model.bindTools()`. Every call goes through `registry.call()` (validation, approval gate,
 * breaker, timeout) and resolves to a {@link toolMessageFor} `ToolMessage`: the tool's function
 * never throws, so the status, the code and a denial reach the model as the registry said them,
 * whatever the framework's error handling. Arguments that break the tool's schema are refused by
 * LangChain's own `invoke` before the function runs (a `ToolInputParsingException`, which
 * `ToolNode` and `createAgent` turn into an error `ToolMessage`). An abort from the run config is passed into the call. It is an
 * array: pick tools with `.filter((tool) => tool.name === …)`.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools: toLangChainTools(registry) });
 * const { messages } = await agent.invoke({
 *   messages: [{ role: 'user', content: 'What is 2 + 3 * 4?' }],
 * });
 * ```
 */
export function toLangChainTools(
  registry: ToolRegistry,
): DynamicStructuredTool[] {
  return adapterTools(registry, { caller: 'toLangChainTools' }).map(
    ({ spec, call }) =>
      new DynamicStructuredTool({
        name: spec.name,
        description: spec.description,
        // A copy: LangChain's JSON Schema validator writes into the schema, the registry's is frozen.
        schema: structuredClone(spec.inputSchema),
        func: async (input: unknown, _runManager, config) => {
          const toolCallId = toolCallIdOf(config) ?? randomUUID();
          const response = await call(input, {
            callId: toolCallId,
            signal: signalOf(config),
          });
          return toolMessageFor(response, {
            toolName: spec.name,
            toolCallId,
          });
        },
      }),
  );
}
