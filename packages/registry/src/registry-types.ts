import { type BreakerOptions } from '@candor/breaker';
import {
  type AnthropicToolSpec,
  type Logger,
  type OpenAIToolSpec,
  type RedactOptions,
  type ToolProgress,
  type ToolResponse,
  type ToolRunContext,
  type ToolAnnotations,
  type ToolSpec,
} from '@candor/tools';
import { type z } from 'zod';
import { type ToolTelemetryOptions } from './tool-telemetry.ts';

// The public types of the registry: its options, the approval gate's request and answer, and
// what listing and specs return.

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

/** Options of `ToolRegistry`. */
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

/** Options of `ToolRegistry.register`. */
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

/** Options of `ToolRegistry.call`. */
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

/** Options of `ToolRegistry.check`. */
export interface CheckOptions {
  /** The id a refused call's response names in its context, as `call()` would; generated when absent. */
  readonly callId?: string;
}

/**
 * What `ToolRegistry.check` answers: the response `call()` would give for a call refused before
 * approval (unknown tool, arguments that are not JSON or break the schema, a registry shut
 * down), or the arguments as validated, with the copy a person may be shown.
 */
export type CheckResult =
  | {
      readonly ok: true;
      readonly toolName: string;
      readonly callId: string;
      /** The arguments as the tool's schema parsed them (coerced, transformed, defaulted). */
      readonly input: unknown;
      /** `input` as JSON, secret-looking values `[REDACTED]`: what to show when asking approval. */
      readonly params: unknown;
    }
  | { readonly ok: false; readonly response: ToolResponse };

/** A plain function the registry can wrap: sync or async, any return value. */
export type PlainToolFunction = (
  args: never,
  context: ToolRunContext,
) => unknown;

/** One row of `ToolRegistry.list`. */
export interface ToolListing {
  readonly name: string;
  readonly description: string;
  /** `legacy`: an auto-wrapped function, still to migrate to `defineTool`. */
  readonly kind: 'structured' | 'legacy';
  readonly idempotent: boolean;
  readonly timeoutMs: number;
  /**
   * What the tool declares a client may assume (`defineTool`'s `annotations`, frozen, with
   * `idempotentHint` from `idempotent`); absent when it declares none.
   */
  readonly annotations?: Readonly<ToolAnnotations>;
}

/** What `ToolRegistry.specs` is asked. */
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
 * The formats of `ToolRegistry.specs`. Only `'json-schema'` (provider-neutral) stays; the
 * provider formats are deprecated.
 */
export type SpecFormat = 'openai' | 'anthropic' | 'json-schema';

/**
 * A tool as a plain JSON Schema, for any provider.
 * @deprecated The same as `ToolSpec` from `@candor/tools`; use that name.
 */
export type JsonSchemaToolSpec = ToolSpec;

/** What `ToolRegistry.specs` returns for each format. */
export interface SpecsByFormat {
  /** @deprecated Use the provider-neutral default. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
  openai: OpenAIToolSpec;
  /** @deprecated Use the provider-neutral default. */
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
  anthropic: AnthropicToolSpec;
  'json-schema': ToolSpec;
}
