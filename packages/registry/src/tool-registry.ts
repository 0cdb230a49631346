import { randomUUID } from 'node:crypto';
import { describeThrown } from '@candor/errors';
import {
  type Admission,
  BreakerRegistry,
  type DeadlineRun,
  runWithDeadline,
  type BreakerOptions,
  type BreakerSnapshot,
  type BreakerState,
  type ToolBreaker,
} from '@candor/breaker';
import {
  type AnthropicToolSpec,
  type AnyToolDefinition,
  type OpenAIToolSpec,
  type RedactOptions,
  SecretRedactor,
  CallAbort,
  defineTool,
  guardLogger,
  isToolDefinition,
  type Logger,
  outcomeOf,
  silentLogger,
  toAnthropicTool,
  TOOL_NAME_PATTERN,
  ToolProtocolError,
  toolSpec,
  type ToolSpec,
  ToolResponse,
  type ToolStats,
  toOpenAITool,
  type ToolProgress,
  type ToolRunContext,
} from '@candor/tools';
import { type Meter, type Span, type Tracer } from '@opentelemetry/api';
import { z } from 'zod';
import { normaliseLegacy, normaliseStructured } from './normalise-response.ts';
import {
  decodeArguments,
  type ParsedArguments,
  validateArguments,
} from './parse-arguments.ts';
import {
  SNAPSHOT_MAX_CHARS,
  snapshotJson,
  TOO_LARGE,
} from './snapshot-json.ts';
import {
  type CallStage,
  RegistryEmitter,
  type RegistryEvents,
} from './registry-events.ts';
import { RunContext } from './run-context.ts';
import { ToolTelemetry, type ToolTelemetryOptions } from './tool-telemetry.ts';

/** What an approval gate is asked. `params` are censored. */
export interface ApprovalRequest {
  /** The tool the call asks for. */
  readonly toolName: string;
  /** The call's id. */
  readonly callId: string;
  /** The arguments, already validated against the tool's input schema. */
  readonly params: unknown;
}

/** An approval gate's answer: `true` runs the call, `false` or `{ approved: false }` refuses it. */
export type ApprovalDecision =
  boolean | { readonly approved: boolean; readonly reason?: string };

/** An approval gate: asked before the breaker and the run whether a call may run. */
export type ApprovalGate = (
  request: ApprovalRequest,
) => ApprovalDecision | Promise<ApprovalDecision>;

/** Options of {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** pino-compatible; silent by default. */
  readonly logger?: Logger;
  /** Breaker defaults for every tool, or `false` to run without breakers. */
  readonly breaker?: BreakerOptions | false;
  /** Default time limit of a tool, in milliseconds. 30 000 unless set. */
  readonly timeoutMs?: number;
  /** Decides, before the breaker and the run, whether a call may run. */
  readonly approve?: ApprovalGate;
  /** More secret-looking keys to censor, besides the built-in ones. */
  readonly redact?: RedactOptions;
  /** Longer result texts are cut to head and tail, and the response becomes PARTIAL. 200 000. */
  readonly maxResultChars?: number;
  /**
   * OpenTelemetry: one `execute_tool {tool}` span and one `gen_ai.execute_tool.duration`
   * measurement per call, and the breakers' metrics. `{ tracer?, meter? }` injects where they go
   * (default: the global API, a no-op until the application registers an SDK); `false` records
   * nothing at all.
   */
  readonly telemetry?: ToolTelemetryOptions | false;
}

/** Options of {@link ToolRegistry.register}. */
export interface RegisterOptions {
  /** Replace a tool of the same name instead of failing. */
  readonly replace?: boolean;
  /** This tool's breaker options, or `false` for none (pure, local tools). */
  readonly breaker?: BreakerOptions | false;
}

/** Options for registering a plain function. */
export interface RegisterFunctionOptions extends RegisterOptions {
  /** The tool's name; defaults to the function's own `name`. */
  readonly name?: string;
  /**
   * What the model reads about the tool; without it the model gets a generic
   * "Legacy tool … (auto-wrapped function)".
   */
  readonly description?: string;
  /** A zod schema for the arguments; without one, any JSON object is passed through. */
  readonly input?: z.ZodType;
}

/** Options of {@link ToolRegistry.call}. */
export interface CallOptions {
  /** The call's id in events, logs and traces; generated when absent. */
  readonly callId?: string;
  /** Cancels the call; the tool sees it as `context.signal`. */
  readonly signal?: AbortSignal;
  /** Overrides the tool's (and the registry's) timeout for this call. */
  readonly timeoutMs?: number;
  /**
   * Receives what the tool reports with `context.reportProgress` while it runs (finite numbers
   * only). A listener that throws is ignored.
   */
  readonly onProgress?: (progress: ToolProgress) => void;
  /**
   * Decides this call's approval instead of the registry's gate, which it receives as `gate`
   * (one that approves everything when the registry has none) to defer to. Its answer takes the
   * same path as the gate's: a refusal is a denial, a throw is INTERNAL_ERROR, neither runs the
   * tool nor touches the breaker. For a caller that can ask someone (an MCP client's user).
   */
  readonly approve?: (
    request: ApprovalRequest,
    gate: ApprovalGate,
  ) => ApprovalDecision | Promise<ApprovalDecision>;
}

/** A plain function the registry can wrap: sync or async, any return value. */
export type PlainToolFunction = (
  args: never,
  context: ToolRunContext,
) => unknown;

/** One row of {@link ToolRegistry.list}. */
export interface ToolListing {
  readonly name: string;
  readonly description: string;
  /** `legacy`: an auto-wrapped function, still to migrate to `defineTool`. */
  readonly kind: 'structured' | 'legacy';
  readonly idempotent: boolean;
  readonly timeoutMs: number;
}

/** What {@link ToolRegistry.specs} is asked. */
export interface SpecsOptions<TFormat extends SpecFormat = 'json-schema'> {
  /**
   * Leave out for provider-neutral `ToolSpec`s (the same as `'json-schema'`).
   * `'openai'` and `'anthropic'` are deprecated: each model wire converts a `ToolSpec` itself.
   * They are removed in the next minor version.
   */
  readonly format?: TFormat;
  /** Leave out tools whose circuit is open, so the model does not pick them. */
  readonly hideOpenCircuits?: boolean;
}

/**
 * The formats of {@link ToolRegistry.specs}. Only `'json-schema'` (provider-neutral) stays; the
 * provider formats are deprecated.
 */
export type SpecFormat = 'openai' | 'anthropic' | 'json-schema';

/**
 * A tool as a plain JSON Schema, for any provider.
 * @deprecated The same as `ToolSpec` from `@candor/tools`; use that name.
 */
export type JsonSchemaToolSpec = ToolSpec;

/** What {@link ToolRegistry.specs} returns for each format. */
export interface SpecsByFormat {
  /** @deprecated Use the provider-neutral default. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
  openai: OpenAIToolSpec;
  /** @deprecated Use the provider-neutral default. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
  anthropic: AnthropicToolSpec;
  'json-schema': ToolSpec;
}

const specFormats: ReadonlySet<string> = new Set<SpecFormat>([
  'openai',
  'anthropic',
  'json-schema',
]);

// One shared "no breaker overrides" for every tool registered without any: an empty object per
// tool would cost heap for nothing (docs/benchmarks.md, the heap row).
const noOverrides: BreakerOptions = Object.freeze({});

interface Entry {
  readonly tool: AnyToolDefinition;
  readonly kind: 'structured' | 'legacy';
  readonly breaker: BreakerOptions | false;
  /** The tool's breaker once a call has asked for it (the breaker registry keeps it by name). */
  breakerInstance?: ToolBreaker | undefined;
  /** The tool's provider-neutral spec, made on first use: a tool never changes once registered. */
  spec?: ToolSpec | undefined;
}

interface StageResult {
  readonly stage: CallStage;
  readonly response: ToolResponse;
  /** Attempts made, for tools with retries. */
  readonly attempts?: number;
  /** The state of the tool's breaker when the call reached it; for telemetry. */
  readonly breakerState?: BreakerState;
}

interface CallRequest {
  readonly toolName: string;
  readonly callId: string;
  /** The registered tool of that name when the call began. */
  readonly entry: Entry | undefined;
  readonly decoded: ParsedArguments;
  readonly params: unknown;
  readonly options: GivenOptions;
  /** The caller's progress listener, where `RunContext` reads it. */
  readonly onProgress: ((progress: ToolProgress) => void) | undefined;
  /** Whether the call has a span: only then is the breaker's state read for it. */
  readonly traced: boolean;
}

/** What `#finish` needs of a call. */
interface FinishInput {
  readonly toolName: string;
  readonly callId: string;
  readonly params: unknown;
  readonly secrets: readonly string[];
  readonly started: number;
  readonly result: StageResult;
  readonly span: Span | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
// Node clamps longer timer delays to 1 ms, which would time every call out at once.
const MAX_TIMER_MS = 2_147_483_647;
const DEFAULT_MAX_RESULT_CHARS = 200_000;
const ANY_OBJECT = z.looseObject({});

function positive(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `ToolRegistry: ${name} must be a positive finite number, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * The one seam every tool call passes through. `call()` never throws and never rejects: every
 * path ends in a valid `ToolResponse`.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * registry.register(readFileTool);
 * registry.register(function legacyLookup(args: { id: string }) { return `found ${args.id}`; });
 * const response = await registry.call('read_file', '{"path":"README.md"}');
 * ```
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Entry>();
  readonly #logger: Logger;
  readonly #breakers: BreakerRegistry | undefined;
  readonly #timeoutMs: number;
  readonly #maxResultChars: number;
  readonly #approve: ApprovalGate | undefined;
  readonly #redactor: SecretRedactor;
  readonly #events: RegistryEmitter;
  readonly #telemetry: ToolTelemetry | undefined;
  #telemetryFailed = false;
  #shutDown = false;

  constructor(options: ToolRegistryOptions = {}) {
    // Guarded once, here: a logger that throws loses its line, never a call's response.
    const logger = guardLogger(options.logger);
    this.#logger = logger.child({ component: 'tool-registry' });
    this.#timeoutMs = positive(
      'timeoutMs',
      options.timeoutMs,
      DEFAULT_TIMEOUT_MS,
    );
    this.#maxResultChars = positive(
      'maxResultChars',
      options.maxResultChars,
      DEFAULT_MAX_RESULT_CHARS,
    );
    this.#approve = options.approve;
    this.#redactor = new SecretRedactor(options.redact);
    const telemetry = checkTelemetry(options.telemetry);
    this.#telemetry =
      telemetry === false
        ? undefined
        : ToolTelemetry.create(telemetry, (error) => {
            this.#telemetryError(error);
          });
    this.#breakers =
      options.breaker === false
        ? undefined
        : new BreakerRegistry({
            logger,
            telemetry:
              telemetry === false
                ? false
                : telemetry.meter === undefined
                  ? {}
                  : { meter: telemetry.meter },
            ...options.breaker,
          });
    this.#events = new RegistryEmitter((error, event) => {
      this.#logger.error(
        { event, error: describeThrown(error) },
        'registry event listener threw',
      );
    });
  }

  #telemetryError(error: unknown): void {
    // Once per registry: a broken tracer would otherwise write a line per call.
    if (this.#telemetryFailed) return;
    this.#telemetryFailed = true;
    this.#logger.warn(
      { error: describeThrown(error) },
      'telemetry failed; calls are unaffected',
    );
  }

  /** Registers a `defineTool` tool, or wraps a plain function (sync or async). */
  register(tool: AnyToolDefinition, options?: RegisterOptions): this;
  register(fn: PlainToolFunction, options?: RegisterFunctionOptions): this;
  register(
    tool: AnyToolDefinition | PlainToolFunction,
    options: RegisterFunctionOptions = {},
  ): this {
    const entry: Entry = isToolDefinition(tool)
      ? {
          tool,
          kind: 'structured',
          breaker: options.breaker ?? noOverrides,
          breakerInstance: undefined,
          spec: undefined,
        }
      : {
          tool: wrapFunction(tool, options),
          kind: 'legacy',
          breaker: options.breaker ?? noOverrides,
          breakerInstance: undefined,
          spec: undefined,
        };
    const replaced = this.#tools.has(entry.tool.name);
    if (replaced && options.replace !== true) {
      throw new ToolProtocolError({
        field: 'name',
        message: `ToolRegistry: a tool named "${entry.tool.name}" is already registered; pass { replace: true } to replace it`,
      });
    }
    this.#tools.set(entry.tool.name, entry);
    this.#telemetry?.forget(entry.tool.name);
    if (this.#events.has('tool:registered')) {
      this.#events.emit('tool:registered', {
        toolName: entry.tool.name,
        replaced,
      });
    }
    return this;
  }

  /**
   * Subscribes to `tool:start`, `tool:end` (once per call) or `tool:registered` (after each
   * `register()`, added or replaced); returns the unsubscribe function. A listener that throws is
   * logged and never breaks the call or registration that emitted.
   */
  on<K extends keyof RegistryEvents>(
    event: K,
    listener: (payload: RegistryEvents[K]) => void,
  ): () => void {
    return this.#events.on(event, listener);
  }

  /**
   * Calls a tool. The pipeline, in order: lookup, arguments, approval, breaker, run (timeout and
   * cancellation), normalisation, timing and context, then one `tool:end` event and one log line.
   */
  async call(
    name: string,
    args?: unknown,
    options?: CallOptions,
  ): Promise<ToolResponse> {
    const started = performance.now();
    // Read once, defensively: hostile or null options cannot throw past this line.
    const given = readCallOptions(options);
    const callId = given.callId ?? nextCallId();
    const toolName = typeof name === 'string' ? name : describeName(name);
    let span: Span | undefined;
    let params: unknown;
    let secrets: readonly string[] = noSecrets;
    let result: StageResult;
    try {
      // Looked up once: the span and the pipeline read the same entry.
      const entry = this.#tools.get(toolName);
      span = this.#telemetry?.start(toolName, callId, entry?.tool);
      // The one decoding of the arguments; context and logs show them as the tool sees them,
      // as JSON values only, censored.
      const decoded = decodeArguments(args);
      const shown = showArguments(this.#redactor, args, decoded);
      params = shown.params;
      secrets = shown.secrets;
      if (this.#events.has('tool:start')) {
        this.#events.emit('tool:start', { toolName, callId, params });
      }
      const request: CallRequest = {
        toolName,
        callId,
        entry,
        decoded,
        params,
        options: given,
        onProgress: given.onProgress,
        traced: span !== undefined,
      };
      const activeSpan = span;
      const pending =
        this.#telemetry === undefined || activeSpan === undefined
          ? this.#pipeline(request)
          : this.#telemetry.activate(activeSpan, () => this.#pipeline(request));
      // A synchronous tool with a synchronous schema settles without a single await.
      result = pending instanceof Promise ? await pending : pending;
    } catch (error: unknown) {
      // Only a bug of ours lands here; the caller still gets a valid response.
      result = {
        stage: 'run',
        response: ToolResponse.error(
          'INTERNAL_ERROR',
          `The registry failed while calling "${toolName}": ${describeThrown(error)}`,
        ),
      };
    }
    const done = { toolName, callId, params, secrets, started, result, span };
    try {
      return this.#finish(done);
    } catch (error: unknown) {
      // Still inside the never-reject boundary: a bug after the run gives a valid response too.
      return this.#finish({
        ...done,
        secrets: noSecrets,
        result: {
          stage: result.stage,
          response: ToolResponse.error(
            'INTERNAL_ERROR',
            `The registry failed while finishing the call to "${toolName}": ${describeThrown(error)}`,
          ),
        },
      });
    }
  }

  /** Everything from the lookup on; a value when nothing on the way is asynchronous. */
  #pipeline(call: CallRequest): StageResult | Promise<StageResult> {
    const { toolName } = call;
    if (this.#shutDown) {
      return {
        stage: 'lookup',
        response: ToolResponse.error(
          'CIRCUIT_OPEN',
          'The tool registry has been shut down.',
          { retryable: false },
        ),
      };
    }
    const entry = call.entry;
    if (entry === undefined) {
      const available = [...this.#tools.keys()].sort().join(', ') || '(none)';
      return {
        stage: 'lookup',
        response: ToolResponse.error(
          'NOT_FOUND',
          `Unknown tool "${truncate(toolName, 80)}". Available tools: ${available}.`,
        ),
      };
    }
    const parsed = validateArguments(entry.tool.input, call.decoded);
    return parsed instanceof Promise
      ? parsed.then((checked) => this.#validated(entry, call, checked))
      : this.#validated(entry, call, parsed);
  }

  #validated(
    entry: Entry,
    call: CallRequest,
    parsed: ParsedArguments,
  ): StageResult | Promise<StageResult> {
    if (!parsed.ok) return { stage: 'arguments', response: parsed.response };
    if (this.#approve !== undefined || call.options.approve !== undefined) {
      return this.#approved(entry, call, parsed.value);
    }
    return this.#run(entry, call, parsed.value);
  }

  async #approved(
    entry: Entry,
    call: CallRequest,
    input: unknown,
  ): Promise<StageResult> {
    const refusal = await this.#askApproval(
      { toolName: call.toolName, callId: call.callId, params: call.params },
      call.options.approve,
    );
    if (refusal !== undefined) return { stage: 'approval', response: refusal };
    return this.#run(entry, call, input);
  }

  #run(
    entry: Entry,
    call: CallRequest,
    input: unknown,
  ): StageResult | Promise<StageResult> {
    const timeoutMs = Math.min(
      positiveOr(
        call.options.timeoutMs,
        entry.tool.timeoutMs ?? this.#timeoutMs,
      ),
      MAX_TIMER_MS,
    );
    const retry = retryPlan(entry.tool);
    if (retry !== undefined) {
      return this.#retrying(entry, call, { input, timeoutMs, retry });
    }
    if (call.options.signal?.aborted === true) {
      return { stage: 'run', response: cancelledBeforeStart(call.toolName) };
    }
    return this.#attempt(entry, call, { input, timeoutMs });
  }

  /** An idempotent tool's attempts: retry around breaker around deadline. */
  async #retrying(
    entry: Entry,
    call: CallRequest,
    plan: { input: unknown; timeoutMs: number; retry: RetryPlan },
  ): Promise<StageResult> {
    const { toolName, callId } = call;
    const { retry } = plan;
    const signal = call.options.signal;
    let attempts = 0;
    for (;;) {
      if (signal?.aborted === true) {
        return attempts === 0
          ? { stage: 'run', response: cancelledBeforeStart(toolName) }
          : {
              stage: 'run',
              response: cancelledWhileRunning(toolName),
              attempts,
            };
      }
      attempts += 1;
      const result = await this.#attempt(entry, call, plan);
      const withAttempts = { ...result, attempts };
      if (attempts >= retry.attempts) return withAttempts;
      const delayMs = retryDelay(result.response, retry, attempts);
      if (delayMs === undefined) return withAttempts;
      this.#logger.debug(
        { tool: toolName, callId, attempt: attempts, delayMs },
        'retrying a transient failure',
      );
      await pause(delayMs, signal);
    }
  }

  /** One attempt: through the breaker, then one run under one deadline. */
  #attempt(
    entry: Entry,
    call: CallRequest,
    { input, timeoutMs }: { input: unknown; timeoutMs: number },
  ): StageResult | Promise<StageResult> {
    const breaker = this.#breakerFor(entry);
    // Only a span records it; the state getter is not free.
    const breakerState = call.traced ? breaker?.state : undefined;
    const admission = breaker === undefined ? undefined : breaker.admit();
    if (admission !== undefined && !admission.admitted) {
      return breakerState === undefined
        ? { stage: 'breaker', response: admission.response }
        : { stage: 'breaker', response: admission.response, breakerState };
    }
    const run = new AttemptRun(entry, call, { input, timeoutMs });
    let response: ToolResponse | Promise<ToolResponse>;
    try {
      response = runWithDeadline(run);
    } catch (error: unknown) {
      // runWithDeadline never throws; if it ever did, the admission is still recorded.
      response = ToolResponse.error(
        'INTERNAL_ERROR',
        `The registry failed while running "${call.toolName}": ${describeThrown(error)}`,
      );
    }
    if (response instanceof Promise) {
      return response.then(
        (settled) => run.end(settled, admission, breakerState),
        (error: unknown) =>
          run.end(
            ToolResponse.error(
              'INTERNAL_ERROR',
              `The registry failed while running "${call.toolName}": ${describeThrown(error)}`,
            ),
            admission,
            breakerState,
          ),
      );
    }
    return run.end(response, admission, breakerState);
  }

  async #askApproval(
    request: ApprovalRequest,
    perCall: GivenOptions['approve'],
  ): Promise<ToolResponse | undefined> {
    const gate: ApprovalGate = this.#approve ?? approveAll;
    let verdict: { approved: boolean; reason: string };
    try {
      verdict = readDecision(
        await (perCall === undefined ? gate(request) : perCall(request, gate)),
      );
    } catch (error: unknown) {
      return ToolResponse.error(
        'INTERNAL_ERROR',
        `The approval gate failed, so "${request.toolName}" was not run: ${describeThrown(error)}`,
        { retryable: false, details: { stage: 'approval' } },
      );
    }
    if (verdict.approved) return undefined;
    const reason = verdict.reason === '' ? '' : ` (reason: ${verdict.reason})`;
    return ToolResponse.denied(
      `The approval gate refused the call to "${request.toolName}"${reason}.`,
    );
  }

  #breakerFor(entry: Entry): ToolBreaker | undefined {
    if (this.#breakers === undefined || entry.breaker === false)
      return undefined;
    return (entry.breakerInstance ??= this.#breakers.get(entry.tool.name, {
      timeoutMs: entry.tool.timeoutMs ?? this.#timeoutMs,
      ...entry.breaker,
    }));
  }

  #finish(done: FinishInput): ToolResponse {
    const { toolName, callId, params, started, result } = done;
    const durationMs = performance.now() - started;
    const finished = this.#final(result.response, done, durationMs);
    const outcome = outcomeOf(finished);
    const code =
      finished.status === 'error' ? finished.errorInfo.code : undefined;
    this.#telemetry?.end(done.span, done, finished);
    // The default logger is silent, and most registries have no listener: build nothing for them.
    if (this.#logger !== silentLogger) {
      const fields = {
        tool: toolName,
        callId,
        outcome,
        ...(code === undefined ? {} : { code }),
        durationMs,
        resultLength: finished.text.length,
        stage: result.stage,
        params,
      };
      if (outcome === 'error') this.#logger.warn(fields, 'tool call failed');
      else this.#logger.info(fields, 'tool call finished');
    }
    if (this.#events.has('tool:end')) {
      const resultLength = finished.text.length;
      const stage = result.stage;
      const response = finished;
      this.#events.emit(
        'tool:end',
        code === undefined
          ? {
              toolName,
              callId,
              outcome,
              durationMs,
              resultLength,
              stage,
              response,
            }
          : {
              toolName,
              callId,
              outcome,
              code,
              durationMs,
              resultLength,
              stage,
              response,
            },
      );
    }
    return finished;
  }

  /**
   * The response that leaves the seam: scrubbed (the one redaction), then built in one object
   * literal per status, so every call's
   * response has one of a few fixed shapes (no spread, then added fields): the call's timing and
   * context, the text capped at `maxResultChars`.
   */
  #final(
    given: ToolResponse,
    done: FinishInput,
    durationMs: number,
  ): ToolResponse {
    const { toolName, callId, params } = done;
    const bounded = boundDetails(given);
    // Read once: scrubbing keeps the keys a response has.
    const unnamed = hasUnnamedKeys(bounded);
    const response = this.#scrub(bounded, done.secrets, unnamed);
    const stats = finalStats(response.stats, durationMs, done.result.attempts);
    const context =
      response.context === undefined
        ? { toolName, callId, params }
        : { ...response.context, toolName, callId, params };
    // Fields the wire schema does not name are kept, as it keeps them: the rare, slower path.
    if (unnamed) {
      return { ...this.#cap(response), stats, context };
    }
    const limit = this.#maxResultChars;
    const capped = response.text.length > limit;
    const text = capped ? capText(response.text, limit) : response.text;
    const hasData = 'data' in response;
    const data = hasData ? response.data : undefined;
    switch (response.status) {
      case 'success':
        if (capped) {
          const reason = 'result_truncated';
          return hasData
            ? { status: 'partial', text, data, stats, context, reason }
            : { status: 'partial', text, stats, context, reason };
        }
        return hasData
          ? { status: 'success', text, data, stats, context }
          : { status: 'success', text, stats, context };
      case 'partial': {
        const reason = response.reason;
        return hasData
          ? { status: 'partial', text, data, stats, context, reason }
          : { status: 'partial', text, stats, context, reason };
      }
      case 'error': {
        const errorInfo = response.errorInfo;
        return hasData
          ? { status: 'error', text, data, stats, context, errorInfo }
          : { status: 'error', text, stats, context, errorInfo };
      }
    }
  }

  /**
   * The one redaction of what leaves the seam: secret-looking keys are censored in the data,
   * details and context, and every secret value (from the arguments or from the response's own
   * secret keys) is scrubbed from every string the response carries. Events, logs, spans, the
   * agent and the model all read this response, so none of them can see the secret.
   *
   * Keys the wire schema does not name, at the top or in `errorInfo`, are kept (as the schema
   * keeps them), so they are censored the same way.
   *
   * One walk looks for secret keys and values first; when there is neither (most calls), the
   * censoring would change nothing, and the response is returned as it is.
   */
  #scrub(
    response: ToolResponse,
    argumentSecrets: readonly string[],
    unnamed: boolean,
  ): ToolResponse {
    const redactor = this.#redactor;
    const secrets = argumentSecrets.length === 0 ? [] : [...argumentSecrets];
    const details =
      response.status === 'error' ? response.errorInfo.details : undefined;
    const dataKeyed =
      'data' in response && redactor.collectSecrets(response.data, secrets);
    const detailsKeyed = redactor.collectSecrets(details, secrets);
    const contextKeyed = redactor.collectSecrets(response.context, secrets);
    const extra = unnamed
      ? unnamedFields(response, namedResponseKey)
      : undefined;
    const extraInfo =
      response.status === 'error'
        ? unnamedFields(response.errorInfo, namedErrorInfoKey)
        : undefined;
    const extraKeyed =
      extra !== undefined && redactor.collectSecrets(extra, secrets);
    const extraInfoKeyed =
      extraInfo !== undefined && redactor.collectSecrets(extraInfo, secrets);
    if (
      !dataKeyed &&
      !detailsKeyed &&
      !contextKeyed &&
      !extraKeyed &&
      !extraInfoKeyed &&
      secrets.length === 0
    ) {
      return response;
    }
    const censor = <T>(value: T): T => redactor.censor(value, secrets) as T;
    const shared = {
      // Spread first: the named fields below are never among them.
      ...(extra === undefined ? {} : censor(extra)),
      text: censor(response.text),
      ...('data' in response ? { data: censor(response.data) } : {}),
      ...(response.context === undefined
        ? {}
        : { context: censor(response.context) }),
    };
    switch (response.status) {
      case 'success':
        return { ...response, ...shared };
      case 'partial':
        return { ...response, ...shared, reason: censor(response.reason) };
      case 'error':
        return {
          ...response,
          ...shared,
          errorInfo: {
            ...response.errorInfo,
            ...(extraInfo === undefined ? {} : censor(extraInfo)),
            message: censor(response.errorInfo.message),
            ...(response.errorInfo.details === undefined
              ? {}
              : { details: censor(response.errorInfo.details) }),
          },
        };
    }
  }

  #cap(response: ToolResponse): ToolResponse {
    const limit = this.#maxResultChars;
    if (response.text.length <= limit) return response;
    const text = capText(response.text, limit);
    if (response.status === 'error') return { ...response, text };
    return {
      ...response,
      status: 'partial',
      text,
      reason:
        response.status === 'partial' ? response.reason : 'result_truncated',
    };
  }

  /** Every registered tool, and whether it is structured or a legacy auto-wrapped function. */
  list(): ToolListing[] {
    return [...this.#tools.values()].map(({ tool, kind }) => ({
      name: tool.name,
      description: tool.description,
      kind,
      idempotent: tool.idempotent === true,
      timeoutMs: tool.timeoutMs ?? this.#timeoutMs,
    }));
  }

  /**
   * Every tool as a provider-neutral `ToolSpec` (name, description, input and output JSON
   * Schema, idempotence). Each model wire, MCP server or adapter converts these to its own shape.
   * A new array each time, of the same frozen spec per tool until the tool is replaced.
   */
  specs<TFormat extends SpecFormat = 'json-schema'>(
    options: SpecsOptions<TFormat> = {},
  ): SpecsByFormat[TFormat][] {
    const entries = [...this.#tools.values()].filter(
      (entry) =>
        options.hideOpenCircuits !== true ||
        this.#breakerState(entry.tool.name) !== 'open',
    );
    const tools = entries.map(({ tool }) => tool);
    const format: SpecFormat = options.format ?? 'json-schema';
    if (!specFormats.has(format)) {
      throw new TypeError(
        `specs: format must be 'json-schema' (or the deprecated 'openai' or 'anthropic'), got ${JSON.stringify(format)}`,
      );
    }
    // Each branch builds exactly the type SpecsByFormat names for its format.
    switch (format) {
      case 'openai':
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
        return tools.map(toOpenAITool) as SpecsByFormat[TFormat][];
      case 'anthropic':
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
        return tools.map(toAnthropicTool) as SpecsByFormat[TFormat][];
      case 'json-schema':
        // Built once per tool: an agent asks for the list before every model request.
        return entries.map(
          (entry) => (entry.spec ??= Object.freeze(toolSpec(entry.tool))),
        ) as SpecsByFormat[TFormat][];
    }
  }

  #breakerState(name: string): string | undefined {
    if (this.#breakers?.has(name) !== true) return undefined;
    return this.#breakers.get(name).state;
  }

  /** Breaker snapshots of the tools that have been called. */
  health(): BreakerSnapshot[] {
    return this.#breakers?.snapshots() ?? [];
  }

  /** Stops every breaker and drops listeners; later calls answer with an error response. */
  shutdown(): void {
    this.#shutDown = true;
    this.#breakers?.shutdownAll();
    this.#events.clear();
  }
}

/** The tool's output schema, checked against the data of a response that is not an error. */
function checkOutput(entry: Entry, response: ToolResponse): ToolResponse {
  const schema = entry.tool.output;
  if (schema === undefined || response.status === 'error') return response;
  const checked = schema.safeParse(response.data);
  if (checked.success) return response;
  const problem = checked.error.issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.map(String).join('.') || '(data)'}: ${issue.message}`,
    )
    .join('; ');
  if (entry.tool.idempotent === true) {
    return ToolResponse.error(
      'INTERNAL_ERROR',
      `Tool "${entry.tool.name}" returned data that does not match its output schema: ${problem}`,
      {
        ...('data' in response ? { data: response.data } : {}),
      },
    );
  }
  // The tool has side effects that already happened: redoing it would repeat them.
  return ToolResponse.partial(
    `${response.text}\n\n[Note: the tool ran, but its result does not match its declared output schema (${problem}). Do not run it again just to fix this.]`,
    {
      reason: 'output_schema_mismatch',
      ...('data' in response ? { data: response.data } : {}),
    },
  );
}

/** One attempt's run under the deadline: one object per attempt, in place of five closures. */
class AttemptRun implements DeadlineRun {
  readonly toolName: string;
  readonly timeoutMs: number;
  readonly abort = new CallAbort();
  readonly #entry: Entry;
  readonly #call: CallRequest;
  readonly #input: unknown;
  #unfollow: () => void = keepFollowing;
  /** Following the caller's signal, or past the point where it may start (the call ended). */
  #following = false;
  #timedOut = false;

  constructor(
    entry: Entry,
    call: CallRequest,
    { input, timeoutMs }: { input: unknown; timeoutMs: number },
  ) {
    this.toolName = call.toolName;
    this.timeoutMs = timeoutMs;
    this.#entry = entry;
    this.#call = call;
    this.#input = input;
  }

  // runWithDeadline passes `this.abort`; the context reads it through this run, which also
  // follows the caller's signal once the tool reads its own.
  run(): unknown {
    return this.#entry.tool.run(this.#input, new RunContext(this, this.#call));
  }

  /**
   * The tool returned a promise: the caller can cancel it from now on, so their signal is
   * followed (Node's `EventTarget` listeners cost a synchronous call microseconds for nothing).
   * `#run` already answered a signal aborted before the start.
   */
  pending(): void {
    this.followCaller();
  }

  /**
   * Follows the caller's signal, once: when the tool returns a promise, or earlier when it reads
   * its own signal (so the signal it holds says "aborted" as soon as the caller's does, even
   * during its synchronous start). A signal that cannot be followed leaves the deadline alone.
   */
  followCaller(): void {
    // Once following, or once the call ended (a tool that reads its signal later, from a callback
    // it left behind, must not leave a listener on the caller's signal for good).
    if (this.#following) return;
    this.#following = true;
    try {
      this.#unfollow = this.abort.follow(this.#call.options.signal);
    } catch {
      // A hostile signal (a throwing getter or addEventListener): the deadline still applies.
    }
  }

  accept(value: unknown): ToolResponse {
    return checkOutput(this.#entry, normaliseStructured(this.toolName, value));
  }

  timedOut(): ToolResponse {
    this.#timedOut = true;
    return ToolResponse.error(
      'TIMEOUT',
      `Tool "${this.toolName}" did not finish within ${this.timeoutMs} ms.`,
    );
  }

  cancelled(): ToolResponse {
    return cancelledWhileRunning(this.toolName);
  }

  /** Stops following the caller's signal for good and records the outcome: once, every path. */
  end(
    response: ToolResponse,
    admission: Admission | undefined,
    breakerState: BreakerState | undefined,
  ): StageResult {
    this.#following = true;
    try {
      this.#unfollow();
    } finally {
      // An admitted call that is never recorded would hold a half-open breaker's one trial
      // slot forever.
      admission?.record(
        response,
        this.#timedOut ? timedOutRecord : settledRecord,
      );
    }
    return breakerState === undefined
      ? { stage: 'run', response }
      : { stage: 'run', response, breakerState };
  }
}

/** What a run that never followed the caller's signal stops following: nothing. */
function keepFollowing(): void {
  // Nothing was subscribed.
}

const timedOutRecord = Object.freeze({ timedOut: true });
const settledRecord = Object.freeze({ timedOut: false });

const noSecrets: readonly string[] = Object.freeze([]);

const tracerMethods = ['startSpan'];
const meterMethods = [
  'createHistogram',
  'createCounter',
  'createObservableGauge',
];

function missingMethods(
  value: unknown,
  methods: readonly string[],
  option: string,
): string[] {
  try {
    return typeof value === 'object' && value !== null
      ? methods.filter(
          (method) =>
            typeof (value as Record<string, unknown>)[method] !== 'function',
        )
      : [...methods];
  } catch (error: unknown) {
    // A getter or Proxy trap that throws: said as a bad option, not as its own raw error.
    throw new TypeError(
      `ToolRegistry: ${option} could not be read: ${describeThrown(error)}`,
      { cause: error },
    );
  }
}

function checkTelemetry(
  value: ToolTelemetryOptions | false | undefined,
): ToolTelemetryOptions | false {
  // Typed callers are not the only callers: JavaScript and config files reach here too.
  const given: unknown = value;
  if (given === undefined) return {};
  if (given === false) return false;
  if (typeof given !== 'object' || given === null) {
    throw new TypeError(
      `ToolRegistry: telemetry must be false or an object like { tracer, meter }, got ${given === null ? 'null' : typeof given}`,
    );
  }
  let tracer: unknown;
  let meter: unknown;
  try {
    ({ tracer, meter } = given as { tracer?: unknown; meter?: unknown });
  } catch (error: unknown) {
    throw new TypeError(
      `ToolRegistry: telemetry could not be read: ${describeThrown(error)}`,
      { cause: error },
    );
  }
  const tracerMissing =
    tracer === undefined
      ? []
      : missingMethods(tracer, tracerMethods, 'telemetry.tracer');
  if (tracerMissing.length > 0) {
    throw new TypeError(
      `ToolRegistry: telemetry.tracer must be an OpenTelemetry Tracer; it lacks ${tracerMissing.join(', ')}`,
    );
  }
  const meterMissing =
    meter === undefined
      ? []
      : missingMethods(meter, meterMethods, 'telemetry.meter');
  if (meterMissing.length > 0) {
    throw new TypeError(
      `ToolRegistry: telemetry.meter must be an OpenTelemetry Meter; it lacks ${meterMissing.join(', ')}`,
    );
  }
  // The values checked, not `given`: a getter read again could answer differently, or throw.
  return {
    ...(tracer === undefined ? {} : { tracer: tracer as Tracer }),
    ...(meter === undefined ? {} : { meter: meter as Meter }),
  };
}

function wrapFunction(
  fn: PlainToolFunction,
  options: RegisterFunctionOptions,
): AnyToolDefinition {
  if (typeof fn !== 'function') {
    throw new ToolProtocolError({
      field: '',
      message:
        'ToolRegistry.register: expected a defineTool() tool or a function',
    });
  }
  const name = options.name ?? fn.name;
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ToolProtocolError({
      field: 'name',
      message: `ToolRegistry.register: invalid tool name ${JSON.stringify(name)}; give { name } with 1 to 64 characters of a-z, A-Z, 0-9, _ and -`,
    });
  }
  return defineTool({
    name,
    description:
      options.description ?? `Legacy tool ${name} (auto-wrapped function).`,
    input: options.input ?? ANY_OBJECT,
    run: async (input, context) =>
      normaliseLegacy(name, await fn(input as never, context)),
  });
}

interface RetryPlan {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
}

function retryPlan(tool: AnyToolDefinition): RetryPlan | undefined {
  const retry = tool.retry;
  if (retry === undefined || tool.idempotent !== true) return undefined;
  return {
    attempts: retry.attempts ?? 3,
    baseDelayMs: retry.baseDelayMs ?? 200,
    maxDelayMs: retry.maxDelayMs ?? 5_000,
    maxRetryAfterMs: retry.maxRetryAfterMs ?? 10_000,
  };
}

const transientCodes: ReadonlySet<string> = new Set([
  'TIMEOUT',
  'NETWORK_ERROR',
  'RATE_LIMIT',
  'API_ERROR',
]);

/** How long to wait before the next attempt, or `undefined` when this response is final. */
function retryDelay(
  response: ToolResponse,
  plan: RetryPlan,
  attempt: number,
): number | undefined {
  if (response.status !== 'error') return undefined;
  const info = response.errorInfo;
  if (info.cancelled === true || info.denied === true) return undefined;
  if (!transientCodes.has(info.code)) return undefined;
  // API errors say themselves whether they are worth retrying (a 503 is, a 400 is not).
  if (info.code === 'API_ERROR' && !info.retryable) return undefined;
  if (info.retryAfterMs !== undefined) {
    return info.retryAfterMs <= plan.maxRetryAfterMs
      ? info.retryAfterMs
      : undefined;
  }
  // Full jitter: spreads the retries of many callers instead of syncing them.
  const ceiling = Math.min(
    plan.maxDelayMs,
    plan.baseDelayMs * 2 ** (attempt - 1),
  );
  return Math.random() * ceiling;
}

/** Waits `ms`, or less when `signal` aborts. Never rejects. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function cancelledBeforeStart(toolName: string): ToolResponse {
  return ToolResponse.error(
    'EXECUTION_ERROR',
    `The call to "${toolName}" was cancelled by the caller before it started.`,
    { cancelled: true, retryable: false },
  );
}

function cancelledWhileRunning(toolName: string): ToolResponse {
  return ToolResponse.error(
    'EXECUTION_ERROR',
    `The call to "${toolName}" was cancelled by the caller.`,
    { cancelled: true, retryable: false },
  );
}

/** {@link CallOptions} as read once: only values of the right type survive. */
interface GivenOptions {
  readonly callId: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number | undefined;
  readonly onProgress: ((progress: ToolProgress) => void) | undefined;
  readonly approve: CallOptions['approve'];
}

const noOptions: GivenOptions = {
  callId: undefined,
  signal: undefined,
  timeoutMs: undefined,
  onProgress: undefined,
  approve: undefined,
};

const approveAll: ApprovalGate = () => true;

/**
 * Only `true` or `{ approved: true }` approves: anything else a gate returns (undefined, a string,
 * a hostile object) refuses, since an unknown answer is not an approval. May throw (getters).
 */
function readDecision(decision: unknown): {
  approved: boolean;
  reason: string;
} {
  if (typeof decision === 'boolean') return { approved: decision, reason: '' };
  if (typeof decision !== 'object' || decision === null) {
    return { approved: false, reason: '' };
  }
  const { approved, reason } = decision as Record<string, unknown>;
  return {
    approved: approved === true,
    reason: typeof reason === 'string' ? reason.trim() : '',
  };
}

function readCallOptions(options: unknown): GivenOptions {
  if (typeof options !== 'object' || options === null) return noOptions;
  try {
    const { callId, signal, timeoutMs, onProgress, approve } =
      options as Record<string, unknown>;
    return {
      callId: typeof callId === 'string' && callId !== '' ? callId : undefined,
      signal: signal instanceof AbortSignal ? signal : undefined,
      timeoutMs: typeof timeoutMs === 'number' ? timeoutMs : undefined,
      onProgress:
        typeof onProgress === 'function'
          ? (onProgress as (progress: ToolProgress) => void)
          : undefined,
      approve:
        typeof approve === 'function'
          ? (approve as CallOptions['approve'])
          : undefined,
    };
  } catch {
    return noOptions;
  }
}

// Unique within the process and cheap: a random prefix per process, then a counter.
const callIdPrefix = `call_${randomUUID().slice(0, 8)}_`;
let callCount = 0;

function nextCallId(): string {
  callCount += 1;
  return `${callIdPrefix}${callCount.toString(36)}`;
}

/**
 * The arguments as context and logs show them (JSON values only, secret-looking keys censored),
 * and the secret values found under those keys, in one walk of the arguments.
 */
function showArguments(
  redactor: SecretRedactor,
  args: unknown,
  decoded: ParsedArguments,
): { readonly params: unknown; readonly secrets: readonly string[] } {
  // A string that is not JSON is shown as the string it is, unless past a snapshot's size.
  if (!decoded.ok) {
    const long = typeof args === 'string' && args.length > SNAPSHOT_MAX_CHARS;
    return { params: long ? TOO_LARGE : args, secrets: noSecrets };
  }
  const secrets: string[] = [];
  // Decoded from JSON text: plain data already, and only censored (the redactor bounds the
  // depth as a snapshot does; a text too long for a snapshot is read as one, for its size).
  if (
    args === undefined ||
    (typeof args === 'string' && args.length <= SNAPSHOT_MAX_CHARS)
  ) {
    return { params: redactor.redact(decoded.value, secrets), secrets };
  }
  // Given as a value: read once into JSON and censored in the same walk.
  const snapshot = snapshotJson(decoded.value, { redactor, found: secrets });
  if (!snapshot.ok) {
    return {
      params: `[arguments that are not JSON: ${snapshot.reason}]`,
      secrets: redactor.secretValues(decoded.value),
    };
  }
  return { params: snapshot.value, secrets };
}

/**
 * An error's details as a bounded JSON snapshot. The details of what a tool threw reach the
 * response as the thrown object held them (nothing else is left unread), so they could be a
 * cycle, or too deep or too large to serialise.
 */
function boundDetails(response: ToolResponse): ToolResponse {
  if (response.status !== 'error') return response;
  const details = response.errorInfo.details;
  if (details === undefined) return response;
  const snapshot = snapshotJson(details);
  const copy =
    snapshot.ok && typeof snapshot.value === 'object' && snapshot.value !== null
      ? (snapshot.value as Record<string, unknown>)
      : {
          unserialisable: snapshot.ok
            ? 'the details are not a JSON object'
            : snapshot.reason,
        };
  return {
    ...response,
    errorInfo: { ...response.errorInfo, details: copy },
  };
}

/** The response's stats with the call's time (and attempts); one fixed shape for most tools. */
function finalStats(
  given: ToolStats,
  timeMs: number,
  attempts: number | undefined,
): ToolStats {
  // Most tools report no measures of their own.
  if (onlyTime(given)) {
    return attempts === undefined ? { timeMs } : { timeMs, attempts };
  }
  return attempts === undefined
    ? { ...given, timeMs }
    : { ...given, timeMs, attempts };
}

function onlyTime(stats: ToolStats): boolean {
  for (const key in stats) if (key !== 'timeMs') return false;
  return true;
}

/** Whether `key` is a field the wire schema names for a response of this status. */
function namedResponseKey(key: string, response: object): boolean {
  switch (key) {
    case 'status':
    case 'text':
    case 'data':
    case 'stats':
    case 'context':
      return true;
    case 'reason':
      return (response as ToolResponse).status === 'partial';
    case 'errorInfo':
      return (response as ToolResponse).status === 'error';
    default:
      return false;
  }
}

/** Whether `key` is a field the wire schema names in `errorInfo`. */
function namedErrorInfoKey(key: string): boolean {
  switch (key) {
    case 'code':
    case 'message':
    case 'retryable':
    case 'retryAfterMs':
    case 'details':
    case 'cancelled':
    case 'denied':
      return true;
    default:
      return false;
  }
}

/**
 * The fields of a (plain, validated) object whose keys the wire schema does not name, or
 * `undefined` when there are none, as for nearly every response.
 */
function unnamedFields(
  value: object,
  named: (key: string, value: object) => boolean,
): Record<string, unknown> | undefined {
  let any = false;
  // A first look that allocates nothing: most responses have no such key.
  for (const key in value) {
    if (!named(key, value)) {
      any = true;
      break;
    }
  }
  if (!any) return undefined;
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (named(key, value)) continue;
    extra ??= {};
    // Plain data: an own `__proto__` key stays a key.
    Object.defineProperty(extra, key, {
      value: (value as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return extra;
}

/** Whether a response carries keys the wire schema does not name (it keeps them). */
function hasUnnamedKeys(response: ToolResponse): boolean {
  for (const key in response) if (!namedResponseKey(key, response)) return true;
  return false;
}

/** A text longer than `limit`, cut to its head and tail. */
function capText(text: string, limit: number): string {
  const half = Math.floor(limit / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${omitted} characters omitted …]\n${text.slice(-half)}`;
}

function positiveOr(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? value
    : fallback;
}

function describeName(name: unknown): string {
  try {
    return typeof name === 'symbol'
      ? name.toString()
      : `(a ${typeof name}, not a tool name)`;
  } catch {
    return '(an unreadable tool name)';
  }
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`;
}
