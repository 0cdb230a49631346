import { matchesInputSchema } from './approval-precheck.ts';
import { type RedactOptions, SecretRedactor } from './secret-redactor.ts';
import {
  type ToolExecutor,
  type ToolExecutorCallOptions,
  type ToolExecutorSpec,
} from './tool-executor.ts';
import { type ToolResponse } from './tool-response.ts';

/** Decides per call whether a framework asks for approval before the tool runs. */
export type NeedsApproval =
  | boolean
  | ((toolName: string, input: unknown) => boolean | PromiseLike<boolean>);

/** What a framework adapter may be asked, whichever framework it serves. */
export interface AdapterToolsOptions {
  /** Only these tools, by name. Default: every tool. */
  readonly only?: readonly string[];
  /**
   * Hands the call to the framework's own approval before it reaches the registry, only once its
   * arguments match the tool's input schema, and with secret-looking values censored in what the
   * function sees; arguments that do not match are never put to anyone (the registry answers
   * INVALID_PARAM). The registry's `approve` gate still runs on every call.
   */
  readonly needsApproval?: NeedsApproval;
  /**
   * What counts as a secret in the arguments `needsApproval` sees: pass the same `redact` as
   * your registry's. Default: the registry's default keys.
   */
  readonly redact?: RedactOptions;
}

/** One tool as a framework adapter binds it. */
export interface AdapterTool {
  readonly spec: ToolExecutorSpec;
  /** This tool's approval question for the framework; absent when none was asked for. */
  readonly needsApproval?: boolean | ((input: unknown) => Promise<boolean>);
  /**
   * Runs the call through the executor; never rejects. `context` is what the framework handed the
   * tool (any value): the call id and the abort signal are read from it as the adapter said
   * (default: its `callId` and `signal`). Only a non-empty string id and an `AbortSignal` are
   * passed on; anything else, or a read that throws, leaves that one out.
   */
  readonly call: (input: unknown, context?: unknown) => Promise<ToolResponse>;
}

const callIdProperty = (context: unknown): unknown =>
  (context as { readonly callId?: unknown }).callId;
const signalProperty = (context: unknown): unknown =>
  (context as { readonly signal?: unknown }).signal;

// The one check of the framework's values for every adapter. A getter, a Proxy trap (`instanceof`
// asks a Proxy for its prototype) or a null context that throws leaves the value out: `call` is
// documented never to reject.
function callIdIn(
  context: unknown,
  read: (context: unknown) => unknown,
): string | undefined {
  try {
    const callId = read(context);
    return typeof callId === 'string' && callId !== '' ? callId : undefined;
  } catch {
    return undefined;
  }
}

function signalIn(
  context: unknown,
  read: (context: unknown) => unknown,
): AbortSignal | undefined {
  try {
    const signal = read(context);
    return signal instanceof AbortSignal ? signal : undefined;
  } catch {
    return undefined;
  }
}

const noOptions: ToolExecutorCallOptions = Object.freeze({});

/** The executor's options in one object literal per shape: no spreads on the hot path. */
function callOptions(
  callId: string | undefined,
  signal: AbortSignal | undefined,
): ToolExecutorCallOptions {
  if (callId === undefined)
    return signal === undefined ? noOptions : { signal };
  return signal === undefined ? { callId } : { callId, signal };
}

const defaultRedactor = new SecretRedactor();

// The framework asks only about arguments the tool can take, and shows them censored; `false`
// asks nothing, so it stays a plain `false`.
function approvalFor(
  spec: ToolExecutorSpec,
  needsApproval: NeedsApproval | undefined,
  redactor: SecretRedactor,
): Pick<AdapterTool, 'needsApproval'> {
  if (needsApproval === undefined) return {};
  if (needsApproval === false) return { needsApproval };
  return {
    needsApproval: async (input: unknown) => {
      if (!matchesInputSchema(spec.inputSchema, input)) return false;
      if (needsApproval === true) return true;
      return await needsApproval(spec.name, redactor.redact(input));
    },
  };
}

// The registry's per-call `approve` (typed here structurally: tools sits below the registry).
type PerCallApprove = (
  request: { readonly toolName: string; readonly params: unknown },
  gate: (request: never) => unknown,
) => unknown;

// For a call whose arguments were never put to the framework's approval (they broke the schema):
// the registry answers INVALID_PARAM; should it take them after all (a schema that coerces), it
// asks here, after its own validation, with the arguments it censored, and a call that needed
// approval is refused rather than run unapproved.
function unapprovedGate(
  spec: ToolExecutorSpec,
  needsApproval: NeedsApproval,
): PerCallApprove {
  return async (request, gate) => {
    const wanted =
      needsApproval === true ||
      (needsApproval !== false &&
        (await needsApproval(spec.name, request.params)));
    if (!wanted) return gate(request as never);
    return {
      approved: false,
      reason:
        'its arguments did not match the tool schema when approval was to be asked, so nobody approved it',
    };
  };
}

/**
 * The executor's tools as every framework adapter needs them: the provider-neutral spec, the
 * approval question, and a `call` through `executor.call()` (so validation, the approval gate,
 * the breaker and the timeout all apply). `caller` names the adapter in the error for a name in
 * `only` that no tool has. `callIdOf` and `signalOf` say where the framework puts the call id and
 * the abort signal in what it hands a tool; `call` checks what they return (and catches what they
 * throw), so an adapter names the framework's properties and nothing more.
 *
 * @example
 * ```ts
 * const bound = adapterTools(registry, {
 *   caller: 'toMyFrameworkTools',
 *   callIdOf: (options) => (options as { id?: unknown }).id,
 * });
 * for (const { spec, call } of bound) {
 *   frameworkTool(spec.name, (input, options) => call(input, options));
 * }
 * ```
 */
export function adapterTools(
  executor: ToolExecutor,
  options: AdapterToolsOptions & {
    readonly caller: string;
    /** The call id in what the framework hands a tool; may return anything or throw. */
    readonly callIdOf?: (context: unknown) => unknown;
    /** The abort signal in what the framework hands a tool; may return anything or throw. */
    readonly signalOf?: (context: unknown) => unknown;
  },
): AdapterTool[] {
  const callIdOf = options.callIdOf ?? callIdProperty;
  const redactor =
    options.redact === undefined
      ? defaultRedactor
      : new SecretRedactor(options.redact);
  const needsApproval = options.needsApproval;
  const asks = needsApproval !== undefined && needsApproval !== false;
  const signalOf = options.signalOf ?? signalProperty;
  const specs = executor.specs({ format: 'json-schema' });
  const only = options.only === undefined ? undefined : new Set(options.only);
  const unknown = [...(only ?? [])].filter(
    (name) => !specs.some((spec) => spec.name === name),
  );
  if (unknown.length > 0) {
    throw new TypeError(
      `${options.caller}: no registered tool named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  return specs
    .filter((spec) => only === undefined || only.has(spec.name))
    .map((spec) => ({
      spec,
      ...approvalFor(spec, needsApproval, redactor),
      call: (input: unknown, context?: unknown) => {
        const given = callOptions(
          callIdIn(context, callIdOf),
          signalIn(context, signalOf),
        );
        return executor.call(
          spec.name,
          input,
          asks && !matchesInputSchema(spec.inputSchema, input)
            ? ({
                ...given,
                approve: unapprovedGate(spec, needsApproval),
              } as ToolExecutorCallOptions)
            : given,
        );
      },
    }));
}
