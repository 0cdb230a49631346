import { type BreakerOptions, type BreakerSnapshot } from '@candor/breaker';
import {
  type AnyToolDefinition,
  isToolDefinition,
  ToolProtocolError,
  type ToolResponse,
} from '@candor/tools';
import { type Span } from '@opentelemetry/api';
import { askApproval } from './ask-approval.ts';
import {
  type CallRequest,
  type Entry,
  type FoundCall,
  type StageResult,
} from './call-types.ts';
import { checkCall } from './check-call.ts';
import { decodeArguments, type ParsedArguments } from './decode-arguments.ts';
import { failedWhileCalling, finishWhenSettled } from './finish-call.ts';
import { listTools } from './list-tools.ts';
import { isFound, lookupFailure, lookupTool } from './lookup-tool.ts';
import { nextCallId } from './next-call-id.ts';
import { readCallOptions, readToolName } from './read-call-options.ts';
import { resetBreaker } from './reset-breaker.ts';
import { type RegistryEvents } from './registry-events.ts';
import { createSeam, type RegistrySeam } from './registry-seam.ts';
import {
  type CallOptions,
  type CheckOptions,
  type CheckResult,
  type PlainToolFunction,
  type RegisterFunctionOptions,
  type RegisterOptions,
  type SpecFormat,
  type SpecsByFormat,
  type SpecsOptions,
  type ToolListing,
  type ToolRegistryOptions,
} from './registry-types.ts';
import { runCall } from './run-call.ts';
import { noSecrets, showArguments } from './show-arguments.ts';
import { toolSpecs } from './tool-specs.ts';
import { validateArguments } from './validate-arguments.ts';
import { wrapFunction } from './wrap-function.ts';

export type {
  ApprovalDecision,
  ApprovalGate,
  ApprovalRequest,
  CallOptions,
  CheckOptions,
  CheckResult,
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
  JsonSchemaToolSpec,
  PlainToolFunction,
  RegisterFunctionOptions,
  RegisterOptions,
  SpecFormat,
  SpecsByFormat,
  SpecsOptions,
  ToolListing,
  ToolRegistryOptions,
} from './registry-types.ts';

// One shared "no breaker overrides" for every tool registered without any: an empty object per
// tool would cost heap for nothing (docs/benchmarks.md, the heap row).
const noOverrides: BreakerOptions = Object.freeze({});

/**
 * The one seam every tool call passes through. `call()` never throws and never rejects: every
 * path ends in a valid `ToolResponse`. Each stage of a call lives in a file named after it
 * (docs/architecture.md, "How a call flows"); this class only composes them.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * registry.register(readFileTool);
 * registry.register(function legacyLookup(args: { id: string }) {
 *   return `found ${args.id}`;
 * });
 * const response = await registry.call(
 *   'read_file',
 *   '{"path":"README.md"}',
 * );
 * ```
 */
export class ToolRegistry {
  readonly #seam: RegistrySeam;

  constructor(options: ToolRegistryOptions = {}) {
    this.#seam = createSeam(options);
  }

  /** Registers a `defineTool` tool, or wraps a plain function (sync or async). */
  register(tool: AnyToolDefinition, options?: RegisterOptions): this;
  register(fn: PlainToolFunction, options?: RegisterFunctionOptions): this;
  register(
    tool: AnyToolDefinition | PlainToolFunction,
    options: RegisterFunctionOptions = {},
  ): this {
    const seam = this.#seam;
    const structured = isToolDefinition(tool);
    const entry: Entry = {
      tool: structured ? tool : wrapFunction(tool, options),
      kind: structured ? 'structured' : 'legacy',
      breaker: options.breaker ?? noOverrides,
      breakerInstance: undefined,
      spec: undefined,
    };
    const replaced = seam.tools.has(entry.tool.name);
    if (replaced && options.replace !== true) {
      throw new ToolProtocolError({
        field: 'name',
        message: `ToolRegistry: a tool named "${entry.tool.name}" is already registered; pass { replace: true } to replace it`,
      });
    }
    seam.tools.set(entry.tool.name, entry);
    seam.telemetry?.forget(entry.tool.name);
    if (seam.events.has('tool:registered')) {
      seam.events.emit('tool:registered', {
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
    return this.#seam.events.on(event, listener);
  }

  /**
   * Calls a tool. The stages, in order: reading the call's options, lookup, argument decoding,
   * validation, approval, the breaker's admission, the attempt (deadline, cancellation,
   * retries), normalisation, output checking, then finishing: stats, scrubbing, capping, one
   * `tool:end` event and one log line.
   */
  call(
    name: string,
    args?: unknown,
    options?: CallOptions,
  ): Promise<ToolResponse> {
    const seam = this.#seam;
    const started = performance.now();
    // Read once, defensively: hostile or null options cannot throw past this line.
    const given = readCallOptions(options);
    const callId = given.callId ?? nextCallId();
    const toolName = readToolName(name);
    let span: Span | undefined;
    let params: unknown;
    let secrets: readonly string[] = noSecrets;
    let result: StageResult | Promise<StageResult>;
    try {
      // Looked up once: the span and the pipeline read the same entry.
      const entry = lookupTool(seam, toolName);
      span = seam.telemetry?.start(toolName, callId, entry?.tool);
      // The one decoding of the arguments; context and logs show them as the tool sees them,
      // as JSON values only, censored.
      const decoded = decodeArguments(args);
      const shown = showArguments(seam.redactor, args, decoded);
      params = shown.params;
      secrets = shown.secrets;
      if (seam.events.has('tool:start')) {
        seam.events.emit('tool:start', { toolName, callId, params });
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
      result =
        span === undefined
          ? this.#pipeline(request)
          : this.#traced(span, request);
    } catch (error: unknown) {
      result = failedWhileCalling(toolName, error);
    }
    // A synchronous tool with a synchronous schema settles without a single await.
    return finishWhenSettled(seam, {
      toolName,
      callId,
      params,
      secrets,
      started,
      result,
      span,
    });
  }

  /**
   * The stages of `call()` before approval, and none after: lookup, decoding, validation against
   * the tool's schema. Runs no tool and touches no breaker, stats, event or log. Answers the
   * response `call()` would give for a call refused there, or the validated input and its
   * censored copy (what an approval question shows). Never rejects.
   */
  check(
    name: string,
    args?: unknown,
    options?: CheckOptions,
  ): Promise<CheckResult> {
    return checkCall(this.#seam, name, args, options);
  }

  /** The pipeline with the call's span active (its own frame: the closure is made only here). */
  #traced(span: Span, call: CallRequest): StageResult | Promise<StageResult> {
    const telemetry = this.#seam.telemetry;
    if (telemetry === undefined) return this.#pipeline(call);
    return telemetry.activate(span, () => this.#pipeline(call));
  }

  /** Everything from the lookup on; a value when nothing on the way is asynchronous. */
  #pipeline(call: CallRequest): StageResult | Promise<StageResult> {
    if (this.#seam.shutDown || !isFound(call)) {
      return lookupFailure(this.#seam, call.toolName);
    }
    const parsed = validateArguments(call.entry.tool.input, call.decoded);
    return parsed instanceof Promise
      ? parsed.then((checked) => this.#validated(call, checked))
      : this.#validated(call, parsed);
  }

  #validated(
    call: FoundCall,
    parsed: ParsedArguments,
  ): StageResult | Promise<StageResult> {
    if (!parsed.ok) return { stage: 'arguments', response: parsed.response };
    if (
      this.#seam.approve !== undefined ||
      call.options.approve !== undefined
    ) {
      return this.#approved(call, parsed.value);
    }
    return runCall(this.#seam, call, parsed.value);
  }

  async #approved(call: FoundCall, input: unknown): Promise<StageResult> {
    const refusal = await askApproval(
      this.#seam,
      { toolName: call.toolName, callId: call.callId, params: call.params },
      call.options.approve,
    );
    if (refusal !== undefined) return { stage: 'approval', response: refusal };
    return runCall(this.#seam, call, input);
  }

  /** Every registered tool, and whether it is structured or a legacy auto-wrapped function. */
  list(): ToolListing[] {
    return listTools(this.#seam);
  }

  /**
   * Every tool as a provider-neutral `ToolSpec` (name, description, input and output JSON
   * Schema, idempotence). Each model wire, MCP server or adapter converts these to its own shape.
   * A new array each time, of the same frozen spec per tool until the tool is replaced.
   */
  specs<TFormat extends SpecFormat = 'json-schema'>(
    options: SpecsOptions<TFormat> = {},
  ): SpecsByFormat[TFormat][] {
    return toolSpecs(this.#seam, options);
  }

  /** Breaker snapshots of the tools that have been called. */
  health(): BreakerSnapshot[] {
    return this.#seam.breakers?.snapshots() ?? [];
  }

  /** Closes `name`'s breaker now (`ToolBreaker.reset`); `false` when it has none yet. */
  resetBreaker(name: string): boolean {
    return resetBreaker(this.#seam, name);
  }

  /** Stops every breaker and drops listeners; later calls answer with an error response. */
  shutdown(): void {
    const seam = this.#seam;
    seam.shutDown = true;
    seam.breakers?.shutdownAll();
    seam.events.clear();
  }
}
