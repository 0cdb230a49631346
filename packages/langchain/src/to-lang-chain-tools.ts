import { randomUUID } from 'node:crypto';
import { readForeign, type ToolErrorCode } from '@candor/errors';
import {
  type ApprovalDecision,
  type ApprovalGate,
  type ApprovalRequest,
  type ToolRegistry,
} from '@candor/registry';
import {
  adapterTools,
  type AdapterToolsOptions,
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

// Each read once, through `readForeign`: a getter or Proxy trap that throws (or a signal whose
// prototype trap throws, which `instanceof` asks) leaves the value out.
function idIn(config: unknown): string | undefined {
  const id = readForeign(() => toolCallIdOf(config));
  return id.ok && typeof id.value === 'string' && id.value !== ''
    ? id.value
    : undefined;
}

/**
 * The call id and signal for a call made here rather than through `adapterTools`' `call` (an
 * approved call, run with its approval). Exported for the tests, not from the package.
 */
export function callOptionsIn(config: unknown): {
  callId?: string;
  signal?: AbortSignal;
} {
  const callId = idIn(config);
  const signal = readForeign(() => {
    const given = signalOf(config);
    return given instanceof AbortSignal ? given : undefined;
  });
  return {
    ...(callId === undefined ? {} : { callId }),
    ...(signal.ok && signal.value !== undefined
      ? { signal: signal.value }
      : {}),
  };
}

// Where LangChain puts the tool call's id (ToolNode and createAgent pass one) and the signal in
// the run config; `call` checks the values and catches a read that throws (a hostile config).
const toolCallIdOf = (config: unknown): unknown =>
  (config as { readonly toolCall?: { readonly id?: unknown } }).toolCall?.id;
const signalOf = (config: unknown): unknown =>
  (config as { readonly signal?: unknown }).signal;

/**
 * Options of {@link toLangChainTools}: `only` some tools by name; `needsApproval` to pause the
 * graph with LangGraph's `interrupt()` before a call reaches the registry, asked only for a call
 * the registry's `check()` takes (its own validation, refinements and transforms included) and
 * showing the arguments as validated, censored by the registry's `redact`. The
 * registry's own `approve` gate still runs on every approved call.
 */
export type LangChainToolsOptions = AdapterToolsOptions;

/** What `interrupt()` carries when a Candor tool asks for approval. */
export interface CandorApprovalRequest {
  readonly type: 'candor_tool_approval';
  readonly toolName: string;
  /** The tool call's id, when LangChain gave one. */
  readonly toolCallId?: string;
  /** The arguments as the registry validated them, secret-looking values `[REDACTED]`. */
  readonly args: unknown;
}

// The resume value, read once: `true` or `{ approved: true }` approves; anything else refuses.
function decisionOf(resume: unknown): {
  readonly approved: boolean;
  readonly reason?: string;
} {
  if (resume === true) return { approved: true };
  if (typeof resume !== 'object' || resume === null) return { approved: false };
  const { approved, reason } = resume as {
    readonly approved?: unknown;
    readonly reason?: unknown;
  };
  return {
    approved: approved === true,
    ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
  };
}

// LangGraph is needed only to ask: imported then, so a program without approvals needs none.
async function askInGraph(request: CandorApprovalRequest): Promise<unknown> {
  const { interrupt } = await import('@langchain/langgraph');
  return interrupt(request);
}

/**
 * The tools of `tools` the model may be offered now: every one except a registry tool whose
 * circuit is open (tools that are not the registry's stay), as Candor's own `Agent` hides an open
 * circuit. For `model.bindTools(withoutOpenCircuits(registry, tools))` before each model call,
 * or in a `createAgent` middleware's `wrapModelCall` (the package README shows it), so a tool
 * whose circuit opened during the run is left out of the next request.
 *
 * @example
 * ```ts
 * const hideOpenCircuits = createMiddleware({
 *   name: 'HideOpenCircuits',
 *   wrapModelCall: (request, handler) =>
 *     handler({ ...request, tools: withoutOpenCircuits(registry, request.tools) }),
 * });
 * ```
 */
export function withoutOpenCircuits<TTool>(
  registry: ToolRegistry,
  tools: readonly TTool[],
): TTool[] {
  const closed = new Set(
    registry.specs({ hideOpenCircuits: true }).map((spec) => spec.name),
  );
  const open = new Set(
    registry
      .specs()
      .map((spec) => spec.name)
      .filter((name) => !closed.has(name)),
  );
  return tools.filter((tool) => {
    const name = (tool as { readonly name?: unknown } | null)?.name;
    return typeof name !== 'string' || !open.has(name);
  });
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
  options: LangChainToolsOptions = {},
): DynamicStructuredTool[] {
  const bound = adapterTools(registry, {
    ...options,
    caller: 'toLangChainTools',
    callIdOf: toolCallIdOf,
    signalOf,
  });
  return bound.map(
    ({ spec, approval, call }) =>
      new DynamicStructuredTool({
        name: spec.name,
        description: spec.description,
        // A copy: LangChain's JSON Schema validator writes into the schema, the registry's is frozen.
        schema: structuredClone(spec.inputSchema),
        func: async (input: unknown, _runManager, config) => {
          // Asked only for a call the registry's check takes, showing it validated and censored.
          const question =
            approval === undefined ? undefined : await approval(input);
          let approve:
            | ((
                request: ApprovalRequest,
                gate: ApprovalGate,
              ) => ApprovalDecision | Promise<ApprovalDecision>)
            | undefined;
          if (question !== undefined) {
            const toolCallId = idIn(config);
            // Throws LangGraph's interrupt the first time; returns the resume value after.
            const decision = decisionOf(
              await askInGraph({
                type: 'candor_tool_approval',
                toolName: spec.name,
                ...(toolCallId === undefined ? {} : { toolCallId }),
                args: question.params,
              }),
            );
            approve = (request, gate) =>
              decision.approved ? gate(request) : decision;
          }
          const response =
            approve === undefined
              ? await call(input, config)
              : await registry.call(spec.name, input, {
                  ...callOptionsIn(config),
                  approve,
                });
          return toolMessageFor(response, {
            toolName: spec.name,
            // The id the registry ran the call under: the model's, or one of its own when there
            // was none, so the message, the events and the traces name the same call.
            toolCallId: response.context?.callId ?? randomUUID(),
          });
        },
      }),
  );
}
