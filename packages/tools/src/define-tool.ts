import { z } from 'zod';
import { toolInputJsonSchema } from './tool-spec.ts';
import { ToolProtocolError } from './tool-protocol-error.ts';
import { type ToolResponse } from './tool-response.ts';
import {
  readToolAnnotations,
  type ToolAnnotations,
} from './tool-annotations.ts';
import { SUPPORTED_ZOD_RANGE } from './require-zod-4.ts';

const MARKER = Symbol.for('@candor/tools.ToolDefinition');

/** Names every provider accepts: OpenAI and Anthropic both allow 1 to 64 of these characters. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** One progress report of a running tool (the shape of MCP's `notifications/progress`). */
export interface ToolProgress {
  /** How far the tool has got; each report should be larger than the last. */
  readonly progress: number;
  /** The value `progress` reaches when the work is done, when the tool knows it. */
  readonly total?: number;
  /** A short human-readable line about the current step. */
  readonly message?: string;
}

/** What a tool's `run` receives besides its arguments. */
export interface ToolRunContext {
  /** Aborted on timeout or when the caller cancels; pass it on to fetch, child processes, … */
  readonly signal: AbortSignal;
  /** The call's id, as in events, logs and traces. */
  readonly callId: string;
  /** The name the tool was called by. */
  readonly toolName: string;
  /**
   * Tells the caller how far the tool has got (an MCP client sees `notifications/progress`).
   * Present only when the caller listens for progress (so a tool can skip the work of measuring
   * it): call it as `context.reportProgress?.({ progress: 1, total: 3 })`. Never throws; reports
   * whose `progress` is not a finite number are dropped.
   */
  readonly reportProgress?: ((progress: ToolProgress) => void) | undefined;
}

/** A structured tool: a zod input schema and a `run` that returns a `ToolResponse`. */
export interface ToolDefinition<TInput extends z.ZodType = z.ZodType> {
  /** The name the model calls the tool by (1 to 64 letters, digits, `_` or `-`). */
  readonly name: string;
  /** What the model reads about the tool. */
  readonly description: string;
  /** A zod 4 schema for the arguments; `run` gets its parsed output. */
  readonly input: TInput;
  /** Checks `data` of success and partial responses. */
  readonly output?: z.ZodType;
  /**
   * Runs the tool on validated input. Declared as a method so that a tool with a specific input
   * type is still an {@link AnyToolDefinition}.
   */
  run(
    this: void,
    input: z.output<TInput>,
    context: ToolRunContext,
  ): ToolResponse | Promise<ToolResponse>;
  /** Per-tool time limit; the registry's default applies when absent. */
  readonly timeoutMs?: number;
  /**
   * True when running the tool twice has the same effect as once. Decides whether an output that
   * fails its schema is an ERROR (safe to redo) or a PARTIAL (the effect already happened).
   */
  readonly idempotent?: boolean;
  /** Retries on transient failures; only for `idempotent: true` tools. Off when absent. */
  readonly retry?: RetryOptions;
  /**
   * What a client may assume before calling (MCP tool annotations): `serveRegistry` from
   * `@candor/mcp` sends them, and over HTTP without a token serves only `readOnlyHint: true`
   * tools. `idempotentHint` follows `idempotent`. Read once by `defineTool`, frozen.
   */
  readonly annotations?: ToolAnnotations;
}

/**
 * How the registry retries an idempotent tool. Only TIMEOUT, NETWORK_ERROR, RATE_LIMIT and
 * retryable API_ERROR responses are retried; never CIRCUIT_OPEN, invalid arguments, denials or
 * cancelled calls. Each attempt passes the breaker and has its own deadline.
 */
export interface RetryOptions {
  /** Attempts in all, the first included: 1 to 10. Default 3. */
  readonly attempts?: number;
  /** Backoff before the second attempt, doubled each time, with full jitter. Default 200 ms. */
  readonly baseDelayMs?: number;
  /** The longest backoff. Default 5 000 ms. */
  readonly maxDelayMs?: number;
  /**
   * A response's `retryAfterMs` is waited out, up to this; a longer one ends the retries and the
   * response is returned as it is. Default 10 000 ms.
   */
  readonly maxRetryAfterMs?: number;
}

/** A tool definition with its input type erased, for collections of tools. */
export type AnyToolDefinition = ToolDefinition;

function describe(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value)
    : `of type ${typeof value}`;
}

function fail(field: string, message: string): never {
  throw new ToolProtocolError({ field, message: `defineTool: ${message}` });
}

function isZodSchema(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

// A zod 3 schema carries `_def` but not zod 4's `_zod` internals, so it fails `instanceof` with a
// message that would otherwise suggest the schema is missing rather than from the wrong major.
function zod3Hint(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  if (!('_def' in value) || '_zod' in value) return '';
  return `; found a zod 3 schema, but Candor needs zod ${SUPPORTED_ZOD_RANGE} (install zod@4 and import { z } from 'zod')`;
}

function checkDefinition(definition: ToolDefinition): void {
  if (typeof definition !== 'object' || (definition as unknown) === null) {
    fail('', 'expected a definition object');
  }
  const { name, description, input, output, run, timeoutMs, idempotent } =
    definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    fail(
      'name',
      `invalid tool name ${describe(name)}: providers accept 1 to 64 characters of a-z, A-Z, 0-9, _ and -`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    fail(
      'description',
      `tool "${name}" needs a non-empty description: the model reads it`,
    );
  }
  if (!isZodSchema(input)) {
    fail(
      'input',
      `tool "${name}" needs a zod schema as input${zod3Hint(input)}`,
    );
  }
  if (output !== undefined && !isZodSchema(output)) {
    fail(
      'output',
      `tool "${name}": output must be a zod schema when given${zod3Hint(output)}`,
    );
  }
  if (typeof run !== 'function')
    fail('run', `tool "${name}" needs a run function`);
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isFinite(timeoutMs) ||
      timeoutMs <= 0)
  ) {
    fail(
      'timeoutMs',
      `tool "${name}": timeoutMs must be a positive finite number of milliseconds`,
    );
  }
  if (idempotent !== undefined && typeof idempotent !== 'boolean') {
    fail('idempotent', `tool "${name}": idempotent must be a boolean`);
  }
  checkRetry(name, definition.retry, idempotent === true);
}

const retryLimits = {
  attempts: [1, 10],
  baseDelayMs: [0, 60_000],
  maxDelayMs: [0, 600_000],
  maxRetryAfterMs: [0, 600_000],
} as const;

function checkRetry(name: string, retry: unknown, idempotent: boolean): void {
  if (retry === undefined) return;
  if (!idempotent) {
    fail(
      'retry',
      `tool "${name}": retry needs idempotent: true, because a retried call runs the tool again`,
    );
  }
  if (typeof retry !== 'object' || retry === null) {
    fail('retry', `tool "${name}": retry must be an object`);
  }
  for (const [key, value] of Object.entries(retry)) {
    const limits = (retryLimits as Record<string, readonly [number, number]>)[
      key
    ];
    if (limits === undefined) {
      fail(
        `retry.${key}`,
        `tool "${name}": unknown retry option "${key}"; expected ${Object.keys(retryLimits).join(', ')}`,
      );
    }
    const [min, max] = limits;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < min ||
      value > max ||
      (key === 'attempts' && !Number.isInteger(value))
    ) {
      fail(
        `retry.${key}`,
        `tool "${name}": retry.${key} must be a number from ${min} to ${max}, got ${String(value)}`,
      );
    }
  }
}

/**
 * Declares a structured tool. It exists for type inference (`run`'s argument is inferred from
 * `input`) and to fail early, with a clear message, on a name or schema providers would reject.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => ToolResponse.success(String(a + b), { data: a + b }),
 * });
 * ```
 */
export function defineTool<TInput extends z.ZodType>(
  definition: ToolDefinition<TInput>,
): ToolDefinition<TInput> {
  checkDefinition(definition);
  const tool = { ...definition };
  const annotations = readToolAnnotations(
    definition.name,
    definition.annotations,
    definition.idempotent === true,
  );
  if (annotations === undefined) delete tool.annotations;
  else (tool as { annotations?: ToolAnnotations }).annotations = annotations;
  Object.defineProperty(tool, MARKER, { value: true, enumerable: false });
  // Fails now, at definition, rather than at the first request to a provider.
  toolInputJsonSchema(tool);
  return Object.freeze(tool);
}

/** True for a tool made by `defineTool`, from any copy of `@candor/tools`. */
export function isToolDefinition(value: unknown): value is AnyToolDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[MARKER] === true
  );
}
