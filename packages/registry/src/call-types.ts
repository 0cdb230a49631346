import {
  type BreakerOptions,
  type BreakerState,
  type ToolBreaker,
} from '@candor/breaker';
import {
  type AnyToolDefinition,
  type ToolAnnotations,
  type ToolProgress,
  type ToolResponse,
  type ToolSpec,
} from '@candor/tools';
import { type Span } from '@opentelemetry/api';
import { type ParsedArguments } from './decode-arguments.ts';
import { type GivenOptions } from './read-call-options.ts';
import { type RetryPlan } from './retry-plan.ts';
import { type CallStage } from './registry-events.ts';

// The records a call's stages hand each other: a registered tool, a call as read, and where it
// ended.

/** A registered tool. */
export interface Entry {
  readonly tool: AnyToolDefinition;
  readonly kind: 'structured' | 'legacy';
  readonly breaker: BreakerOptions | false;
  /** The tool's breaker once a call has asked for it (the breaker registry keeps it by name). */
  breakerInstance?: ToolBreaker | undefined;
  /** The tool's provider-neutral spec, made on first use: a tool never changes once registered. */
  spec?: ToolSpec | undefined;
  /** The tool's annotations, read once on first listing; `null` when it declares none. */
  annotations?: Readonly<ToolAnnotations> | null | undefined;
}

/** Where a call ended, and with what. */
export interface StageResult {
  readonly stage: CallStage;
  readonly response: ToolResponse;
  /** Attempts made, for tools with retries. */
  readonly attempts?: number;
  /** The state of the tool's breaker when the call reached it; for telemetry. */
  readonly breakerState?: BreakerState;
}

/** A call as read by the first stages, for the ones after them. */
export interface CallRequest {
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

/** A call whose tool was found. */
export type FoundCall = CallRequest & { readonly entry: Entry };

/** One run of a tool that may run: made once per call, shared by its attempts. */
export interface RunPlan {
  readonly entry: Entry;
  /** The arguments as validated against the tool's input schema. */
  readonly input: unknown;
  readonly timeoutMs: number;
  /** An idempotent tool's retries, or `undefined` for one attempt. */
  readonly retry: RetryPlan | undefined;
}

/** What finishing needs of a call. */
export interface FinishInput {
  readonly toolName: string;
  readonly callId: string;
  readonly params: unknown;
  readonly secrets: readonly string[];
  readonly started: number;
  readonly result: StageResult;
  readonly span: Span | undefined;
}
