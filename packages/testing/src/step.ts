import {
  classifyToolResult,
  toolResultKinds,
  type ToolResultKind,
} from './classify-tool-result.ts';
import type { Conversation } from './conversation.ts';
import type { DeliveryFault } from './delivery-faults.ts';
import { isJsonValue, jsonEqual } from './json-equal.ts';
import { compileJsonPath, type JsonPath } from './json-path.ts';
import type { ProviderError } from './provider-protocol.ts';
import { ScriptError } from './script-error.ts';
import type {
  ScriptedReasoning,
  ScriptedReply,
  ScriptedToolCall,
} from './scripted-reply.ts';
import type { FailOptions, RespondOptions, StepScript } from './step-script.ts';
import type { RequestView } from './view-history.ts';

/** One queued attempt of a step. */
export type QueuedAttempt = { readonly delayMs: number } & (
  | {
      readonly kind: 'fail';
      readonly error: ProviderError;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'fault'; readonly fault: DeliveryFault }
  | { readonly kind: 'success' }
);

type Condition = (view: RequestView) => boolean;

function isReasoningBlock(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const block = value as Record<string, unknown>;
  const filled = (key: string): boolean =>
    typeof block[key] === 'string' && block[key] !== '';
  return block['type'] === 'thinking'
    ? typeof block['thinking'] === 'string' && filled('signature')
    : block['type'] === 'redacted_thinking' && filled('data');
}

/** A step's definition plus its runtime queue position. */
export class Step implements StepScript {
  readonly name: string;
  readonly #conversation: Conversation;
  readonly #conditions: Condition[] = [];
  readonly #queue: QueuedAttempt[] = [];
  #pendingDelay = 0;
  #text: string | undefined;
  #calls: readonly ScriptedToolCall[] = [];
  #reasoning: readonly ScriptedReasoning[] = [];
  #textSignature: string | undefined;
  #reasoningTokens: number | undefined;
  #refusal: string | undefined;
  #blockReason: string | undefined;
  #completes = false;
  #next = 0;
  #returned: number[] = [];
  #frozen = false;

  constructor(name: string, conversation: Conversation) {
    this.name = name;
    this.#conversation = conversation;
  }

  #error(message: string): ScriptError {
    return new ScriptError(message, {
      conversation: this.#conversation.name,
      step: this.name,
    });
  }

  #mutable(): void {
    if (this.#frozen) {
      throw this.#error(
        'the conversation is already defined; steps cannot change',
      );
    }
  }

  whenUser(match: string | RegExp): StepScript {
    this.#mutable();
    this.#conditions.push((view) =>
      view.userText === undefined
        ? false
        : typeof match === 'string'
          ? view.userText.includes(match)
          : view.userText.search(match) >= 0,
    );
    return this;
  }

  whenToolResult(
    name: string,
    callId: string,
    kind: ToolResultKind,
  ): StepScript {
    this.#mutable();
    if (!(toolResultKinds as readonly string[]).includes(kind)) {
      throw this.#error(
        `whenToolResult kind "${kind}" can never match: use one of ${toolResultKinds.join(', ')}`,
      );
    }
    if (kind === 'missing' && this.#conversation.strict) {
      throw this.#error(
        'whenToolResult(…, "missing") can never match on a strict server, which answers a missing tool result with the provider\'s 400; start the server with { strict: false }',
      );
    }
    this.#conditions.push(
      (view) =>
        view.lastCalls.some(
          (call) => call.id === callId && call.name === name,
        ) && classifyToolResult(view.results.get(callId)).kind === kind,
    );
    return this;
  }

  whenLatestJson(path: string, value: unknown): StepScript {
    this.#mutable();
    let compiled: JsonPath;
    try {
      compiled = compileJsonPath(path);
    } catch (error: unknown) {
      throw this.#error(
        `whenLatestJson can never match: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!isJsonValue(value)) {
      throw this.#error(
        `whenLatestJson("${path}", …) can never match: the expected value is not a JSON value`,
      );
    }
    this.#conditions.push((view) => {
      const parsed = classifyToolResult(view.latestResult);
      if (!('json' in parsed)) {
        return false;
      }
      const read = compiled.read(parsed.json);
      return read.found && jsonEqual(read.value, value);
    });
    return this;
  }

  whenLatestCode(code: string): StepScript {
    this.#mutable();
    if (typeof code !== 'string' || code === '') {
      throw this.#error('whenLatestCode needs a non-empty code');
    }
    this.#conditions.push(
      (view) => classifyToolResult(view.latestResult).code === code,
    );
    return this;
  }

  whenLatestText(match: string | RegExp): StepScript {
    this.#mutable();
    this.#conditions.push((view) => {
      const { text } = classifyToolResult(view.latestResult);
      if (text === undefined) return false;
      return typeof match === 'string'
        ? text.includes(match)
        : text.search(match) >= 0;
    });
    return this;
  }

  callsTools(calls: readonly ScriptedToolCall[]): StepScript {
    this.#mutable();
    if (calls.length === 0) {
      throw this.#error('callsTools needs at least one tool call');
    }
    const ids = new Set(calls.map((call) => call.id));
    if (ids.size !== calls.length || ids.has('')) {
      throw this.#error(
        'callsTools needs a unique, non-empty id for every call',
      );
    }
    this.#calls = [...calls];
    return this;
  }

  responds(text: string, options: RespondOptions = {}): StepScript {
    this.#mutable();
    this.#text = text;
    this.#textSignature = options.thoughtSignature;
    return this;
  }

  thinks(blocks: readonly ScriptedReasoning[]): StepScript {
    this.#mutable();
    // Read as unknown: scripts may come from JavaScript or JSON with any shape.
    const list: unknown = blocks;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every(isReasoningBlock)
    ) {
      throw this.#error(
        'thinks needs { type: "thinking", thinking, signature } or { type: "redacted_thinking", data } blocks with a non-empty signature / data',
      );
    }
    this.#reasoning = [...blocks];
    return this;
  }

  reasoningTokens(count: number): StepScript {
    this.#mutable();
    if (!Number.isInteger(count) || count < 0) {
      throw this.#error(
        `reasoningTokens needs a whole number >= 0, got ${count}`,
      );
    }
    this.#reasoningTokens = count;
    return this;
  }

  refuses(text: string): StepScript {
    this.#mutable();
    this.#refusal = text;
    return this;
  }

  blocksPrompt(reason = 'SAFETY'): StepScript {
    this.#mutable();
    if (reason === '') {
      throw this.#error('blocksPrompt needs a non-empty block reason');
    }
    this.#blockReason = reason;
    return this;
  }

  complete(): StepScript {
    this.#mutable();
    this.#completes = true;
    return this;
  }

  // The four-argument form is the script vocabulary's public contract.
  // eslint-disable-next-line max-params
  fails(
    status: number,
    code: string,
    message: string,
    options: FailOptions = {},
  ): StepScript {
    this.#mutable();
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw this.#error(
        `fails() needs an HTTP error status 400-599, got ${status}`,
      );
    }
    this.#queue.push({
      delayMs: this.#takeDelay(),
      kind: 'fail',
      error: {
        status,
        code,
        message,
        ...(options.type === undefined ? {} : { type: options.type }),
      },
      headers: options.headers ?? {},
    });
    return this;
  }

  delaysBy(ms: number): StepScript {
    this.#mutable();
    if (!Number.isFinite(ms) || ms < 0) {
      throw this.#error(
        `delaysBy() needs a finite number of ms >= 0, got ${ms}`,
      );
    }
    this.#pendingDelay += ms;
    return this;
  }

  deliversWith(fault: DeliveryFault): StepScript {
    this.#mutable();
    this.#queue.push({ delayMs: this.#takeDelay(), kind: 'fault', fault });
    return this;
  }

  step(name: string): StepScript {
    return this.#conversation.step(name);
  }

  #takeDelay(): number {
    const delay = this.#pendingDelay;
    this.#pendingDelay = 0;
    return delay;
  }

  /** Checks the definition and appends the success attempt. */
  freeze(): void {
    if (
      this.#text === undefined &&
      this.#calls.length === 0 &&
      this.#refusal === undefined &&
      this.#blockReason === undefined
    ) {
      throw this.#error(
        'has no response: call responds(text) or callsTools([...])',
      );
    }
    this.#queue.push({ delayMs: this.#takeDelay(), kind: 'success' });
    this.#frozen = true;
  }

  get spent(): boolean {
    return this.#returned.length === 0 && this.#next >= this.#queue.length;
  }

  get completes(): boolean {
    return this.#completes;
  }

  matches(view: RequestView): boolean {
    return (
      !this.spent && this.#conditions.every((condition) => condition(view))
    );
  }

  get reply(): ScriptedReply {
    const filtered =
      this.#refusal !== undefined || this.#blockReason !== undefined;
    return {
      text: this.#text,
      toolCalls: this.#calls,
      finish: filtered
        ? 'content_filter'
        : this.#calls.length > 0
          ? 'tool_calls'
          : 'stop',
      reasoning: this.#reasoning,
      ...(this.#textSignature === undefined
        ? {}
        : { textSignature: this.#textSignature }),
      ...(this.#reasoningTokens === undefined
        ? {}
        : { reasoningTokens: this.#reasoningTokens }),
      ...(this.#refusal === undefined ? {} : { refusal: this.#refusal }),
      ...(this.#blockReason === undefined
        ? {}
        : { blockReason: this.#blockReason }),
    };
  }

  /** Takes the next attempt; `position` is 1-based. */
  take(): { readonly attempt: QueuedAttempt; readonly position: number } {
    this.#returned.sort((a, b) => a - b);
    const index = this.#returned.shift() ?? this.#next++;
    const attempt = this.#queue[index];
    if (attempt === undefined) {
      throw this.#error('internal: took an attempt from an exhausted queue');
    }
    return { attempt, position: index + 1 };
  }

  /** Hands an attempt back, e.g. when the client cancelled during its delay. */
  giveBack(position: number): void {
    this.#returned.push(position - 1);
  }
}
