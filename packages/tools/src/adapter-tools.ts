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
   * Hands the call to the framework's own approval before it reaches the registry, only once the
   * registry's `check()` took it (lookup and the tool's own validation, refinements and
   * transforms included), and with the arguments as validated, secret-looking values censored,
   * in what the function (and the person) sees. A call the registry would refuse is never put to
   * anyone: it gets the registry's own answer (INVALID_PARAM, NOT_FOUND, …). The registry's
   * `approve` gate still runs on every call. An executor without `check()` is asked about every
   * call, with the arguments as sent.
   */
  readonly needsApproval?: NeedsApproval;
  /**
   * What counts as a secret in the arguments shown for an executor without `check()` (a
   * registry censors with its own `redact`). Default: the registry's default keys.
   */
  readonly redact?: RedactOptions;
}

/** One tool as a framework adapter binds it. */
export interface AdapterTool {
  readonly spec: ToolExecutorSpec;
  /** This tool's approval question for the framework; absent when none was asked for. */
  readonly needsApproval?: boolean | ((input: unknown) => Promise<boolean>);
  /**
   * The same question with what to show: the censored, validated arguments when the framework
   * is to ask about this input, `undefined` when nobody is. Present when `needsApproval` is a
   * function; for a framework that shows the person the arguments itself (a LangGraph interrupt).
   */
  readonly approval?: (
    input: unknown,
  ) => Promise<{ readonly params: unknown } | undefined>;
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

// What the executor's `check` said of a call: taken (with the copy to show), refused, or nothing
// known (no `check`, or one that threw or answered something else).
type Verdict =
  | { readonly ok: true; readonly params: unknown }
  | { readonly ok: false }
  | undefined;

async function verdictOf(
  { executor, checks, spec }: Asking,
  input: unknown,
): Promise<Verdict> {
  if (!checks) return undefined;
  try {
    const checked: unknown = await executor.check?.(spec.name, input);
    if (typeof checked !== 'object' || checked === null) return undefined;
    const { ok, params } = checked as Record<string, unknown>;
    if (ok === true) return { ok, params };
    return ok === false ? { ok } : undefined;
  } catch {
    return undefined;
  }
}

// Read once, as anything from an executor: a getter that throws counts as no `check()`.
function hasCheck(executor: ToolExecutor): boolean {
  try {
    return typeof executor.check === 'function';
  } catch {
    return false;
  }
}

type Question = NonNullable<AdapterTool['approval']>;

/** One tool whose calls may need the framework's approval. */
interface Asking {
  readonly executor: ToolExecutor;
  /** Whether the executor has `check()`, read once. */
  readonly checks: boolean;
  readonly spec: ToolExecutorSpec;
  readonly needsApproval: NeedsApproval;
  readonly redactor: SecretRedactor;
}

// The framework asks only about calls the executor's own check takes (the registry's validation,
// refinements and transforms included), and shows them as validated and censored. An executor
// without a check is asked about every call, with the arguments as sent, censored here: asking
// too often is safe, skipping a question is not.
function questionFor(asking: Asking): Question {
  const { spec, needsApproval, redactor } = asking;
  return async (input) => {
    const verdict = await verdictOf(asking, input);
    if (verdict?.ok === false) return undefined;
    const params =
      verdict === undefined ? redactor.redact(input) : verdict.params;
    if (needsApproval === true) return { params };
    if (needsApproval === false) return undefined;
    return (await needsApproval(spec.name, params)) ? { params } : undefined;
  };
}

// The registry's per-call `approve` (typed here structurally: tools sits below the registry).
type PerCallApprove = (
  request: { readonly toolName: string; readonly params: unknown },
  gate: (request: never) => unknown,
) => unknown;

// For a call the check refused, so nobody was asked: the registry answers its refusal; should it
// take the call after all (the tool replaced in between, a refinement that changed its mind), it
// asks here, after its own validation, and a call that needed approval is refused rather than
// run unapproved.
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
        'its arguments were refused when approval was to be asked, so nobody approved it',
    };
  };
}

// A call whose approval may have been asked: plain when the executor has no check (every call
// was asked) or its check takes the call now (it was asked, or the function said no question);
// any other answer means nobody was asked, so it goes with the gate above.
async function checkedCall(
  asking: Asking,
  input: unknown,
  given: ToolExecutorCallOptions,
): Promise<ToolResponse> {
  const { executor, spec, needsApproval } = asking;
  const plain = !asking.checks || (await verdictOf(asking, input))?.ok === true;
  return executor.call(
    spec.name,
    input,
    plain
      ? given
      : ({
          ...given,
          approve: unapprovedGate(spec, needsApproval),
        } as ToolExecutorCallOptions),
  );
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
  const signalOf = options.signalOf ?? signalProperty;
  const checks = hasCheck(executor);
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
    .map((spec) => {
      const asking =
        needsApproval === undefined || needsApproval === false
          ? undefined
          : { executor, checks, spec, needsApproval, redactor };
      const call = (input: unknown, context?: unknown) => {
        const given = callOptions(
          callIdIn(context, callIdOf),
          signalIn(context, signalOf),
        );
        return asking === undefined
          ? executor.call(spec.name, input, given)
          : checkedCall(asking, input, given);
      };
      if (asking === undefined) {
        return needsApproval === false
          ? { spec, needsApproval, call }
          : { spec, call };
      }
      const approval = questionFor(asking);
      return {
        spec,
        approval,
        needsApproval: async (input: unknown) =>
          (await approval(input)) !== undefined,
        call,
      };
    });
}
