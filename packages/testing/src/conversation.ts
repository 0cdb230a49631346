import {
  classifyToolResult,
  toolResultKinds,
  type ToolResultInput,
  type ToolResultKind,
} from './classify-tool-result.ts';
import type { DeliveryFault } from './delivery-faults.ts';
import { compileJsonPath, type JsonPath } from './json-path.ts';
import type { HistoryEvent, ProviderError } from './provider-protocol.ts';
import { ScriptError } from './script-error.ts';
import type { ScriptedReply, ScriptedToolCall } from './scripted-reply.ts';

/** Options for {@link StepScript.fails}. */
export interface FailOptions {
  /** Response headers, e.g. `retry-after`, `retry-after-ms`, `x-should-retry`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** OpenAI `error.type`; derived from the status when absent. */
  readonly type?: string;
}

/**
 * One named step of a conversation: conditions (`when…`, all must hold), a response
 * (`responds`, `callsTools`), and an attempt queue (`fails`, `delaysBy`, `deliversWith`)
 * that is served before the successful response.
 */
export interface StepScript {
  /** Match when the request ends with a user turn whose text contains `match` (or matches the RegExp). */
  whenUser(match: string | RegExp): StepScript;
  /** Match when the latest assistant turn called `name` as `callId` and its result is of `kind`. */
  whenToolResult(
    name: string,
    callId: string,
    kind: ToolResultKind,
  ): StepScript;
  /** Match when the latest tool result parses as JSON and `path` holds a value deeply equal to `value`. */
  whenLatestJson(path: string, value: unknown): StepScript;
  /**
   * Match when the latest tool result is an error with this code: Candor's bracketed code
   * (`[CIRCUIT_OPEN] …`) or the failure envelope's `error.code`, on every wire.
   */
  whenLatestCode(code: string): StepScript;
  /** Match when the latest tool result's text contains `match` (or matches the RegExp). */
  whenLatestText(match: string | RegExp): StepScript;
  /** Answer with these tool calls (`finish_reason: tool_calls` / `stop_reason: tool_use`). */
  callsTools(calls: readonly ScriptedToolCall[]): StepScript;
  /** Answer with this text. */
  responds(text: string): StepScript;
  /** Mark the conversation complete once this step has answered successfully. */
  complete(): StepScript;
  /** Queue one attempt that fails with a provider-shaped error; it consumes that attempt. */
  fails(
    status: number,
    code: string,
    message: string,
    options?: FailOptions,
  ): StepScript;
  /**
   * Delay the next queued attempt (or the success, if nothing else is queued after it) by
   * `ms`. A client that cancels during the delay does not consume the attempt.
   */
  delaysBy(ms: number): StepScript;
  /** Queue one attempt that sends the step's response broken by `fault`; it consumes that attempt. */
  deliversWith(fault: DeliveryFault): StepScript;
  /** Starts the next step of the same conversation (for chaining). */
  step(name: string): StepScript;
}

/** The builder handed to `server.conversation(name, define)`. */
export interface ConversationScript {
  /** Starts a new step. Names are unique within a conversation. */
  step(name: string): StepScript;
}

/** What a test can see of a defined conversation. */
export interface ConversationHandle {
  readonly name: string;
  /** True once a step marked `complete()` has answered successfully. */
  readonly completed: boolean;
}

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

/** The tail of a request's history, as the matchers see it. */
export interface RequestView {
  /** The latest user text, only when the tail has no tool results. */
  readonly userText: string | undefined;
  readonly lastCalls: readonly { readonly id: string; readonly name: string }[];
  readonly results: ReadonlyMap<string, ToolResultInput>;
  readonly latestResult: ToolResultInput | undefined;
}

/** Builds the matcher view of a history. */
export function viewHistory(history: readonly HistoryEvent[]): RequestView {
  let lastAssistant = -1;
  history.forEach((event, index) => {
    if (event.type === 'assistant') {
      lastAssistant = index;
    }
  });
  const assistant = history[lastAssistant];
  const tail = history.slice(lastAssistant + 1);
  const results = new Map<string, ToolResultInput>();
  let latestResult: ToolResultInput | undefined;
  let userText: string | undefined;
  for (const event of tail) {
    if (event.type === 'tool-result') {
      latestResult = { content: event.content, isError: event.isError };
      results.set(event.callId, latestResult);
    } else if (event.type === 'user') {
      userText = event.text;
    }
  }
  return {
    userText: results.size > 0 ? undefined : userText,
    lastCalls: assistant?.type === 'assistant' ? assistant.calls : [],
    results,
    latestResult,
  };
}

type Condition = (view: RequestView) => boolean;

function isJsonValue(value: unknown): boolean {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean'
  ) {
    return true;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value);
  }
  if (Array.isArray(value)) {
    return value.every(isJsonValue);
  }
  if (
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.values(value).every(isJsonValue);
  }
  return false;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null
  ) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return (
    keysA.length === keysB.length &&
    keysA.every(
      (key) =>
        Object.hasOwn(b, key) &&
        jsonEqual(
          (a as Record<string, unknown>)[key],
          (b as Record<string, unknown>)[key],
        ),
    )
  );
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

  responds(text: string): StepScript {
    this.#mutable();
    this.#text = text;
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
    if (this.#text === undefined && this.#calls.length === 0) {
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
    return {
      text: this.#text,
      toolCalls: this.#calls,
      finish: this.#calls.length > 0 ? 'tool_calls' : 'stop',
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

/** A named conversation: an ordered list of steps. */
export class Conversation implements ConversationScript, ConversationHandle {
  readonly name: string;
  readonly strict: boolean;
  readonly steps: Step[] = [];
  #completedBy: number | undefined;

  constructor(name: string, strict: boolean) {
    this.name = name;
    this.strict = strict;
  }

  get completed(): boolean {
    return this.#completedBy !== undefined;
  }

  step(name: string): StepScript {
    if (name === '') {
      throw new ScriptError('a step needs a non-empty name', {
        conversation: this.name,
      });
    }
    if (this.steps.some((existing) => existing.name === name)) {
      throw new ScriptError(`duplicate step name "${name}"`, {
        conversation: this.name,
        step: name,
      });
    }
    const step = new Step(name, this);
    this.steps.push(step);
    return step;
  }

  freeze(): void {
    if (this.steps.length === 0) {
      throw new ScriptError('has no steps', { conversation: this.name });
    }
    for (const step of this.steps) {
      step.freeze();
    }
  }

  /** The first unspent step whose conditions hold, unless the conversation is complete. */
  match(view: RequestView): Step | undefined {
    return this.completed
      ? undefined
      : this.steps.find((step) => step.matches(view));
  }

  markCompleted(attemptNumber: number): void {
    this.#completedBy = attemptNumber;
  }

  unmarkCompleted(attemptNumber: number): void {
    if (this.#completedBy === attemptNumber) {
      this.#completedBy = undefined;
    }
  }
}
