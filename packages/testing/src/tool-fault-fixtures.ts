import type { ToolResultKind } from './classify-tool-result.ts';

/** The failure envelope a tool returns inside its result content. */
export interface FailureEnvelope {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/**
 * A provider-neutral tool result, as a test's fake tool would produce it. `omitted: true`
 * means the agent sends no result for the call at all.
 */
export interface ToolResultFixture {
  /** The tool call id this result answers. */
  readonly callId: string;
  /** The kind the server's classifier will see (useful for table-driven tests). */
  readonly kind: ToolResultKind;
  /** The wire content; `null` for a null result, absent when omitted. */
  readonly content?: string | null;
  /** Set for failure envelopes; rendered as Anthropic `is_error: true`. */
  readonly isError?: boolean;
  /** True when no result is sent for this call. */
  readonly omitted?: boolean;
}

/** An OpenAI `role: "tool"` message. `content: null` is outside OpenAI's contract, on purpose. */
export interface OpenAiToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string | null;
}

/** An Anthropic `tool_result` content block. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: string | null;
  readonly is_error?: boolean;
}

/**
 * Builders for the tool results that break agents: null, empty, a failure envelope, and a
 * result that is never sent. Render them for a provider with `openAiMessages` or
 * `anthropicMessage` and put them in the request history.
 *
 * @example
 * const results = [toolFaultFixtures.failure('call_1', { code: 'timeout', message: 'slow', retryable: true })];
 * messages.push(...toolFaultFixtures.openAiMessages(results));
 */
export const toolFaultFixtures = {
  /** A normal result: `value` is sent as JSON text (strings as they are). */
  ok(callId: string, value: unknown): ToolResultFixture {
    return {
      callId,
      kind: 'ok',
      content: typeof value === 'string' ? value : JSON.stringify(value),
    };
  },
  /** A result whose content is `null`. */
  nullResult(callId: string): ToolResultFixture {
    return { callId, kind: 'null', content: null };
  },
  /** A result whose content is the empty string. */
  emptyResult(callId: string): ToolResultFixture {
    return { callId, kind: 'empty', content: '' };
  },
  /** A failed tool call: the `{"error":{"code","message","retryable"}}` envelope. */
  failure(callId: string, error: FailureEnvelope): ToolResultFixture {
    return {
      callId,
      kind: 'error',
      content: JSON.stringify({
        error: {
          code: error.code,
          message: error.message,
          retryable: error.retryable,
        },
      }),
      isError: true,
    };
  },
  /** No result at all for the call: a strict server answers with the provider's 400. */
  omittedResult(callId: string): ToolResultFixture {
    return { callId, kind: 'missing', omitted: true };
  },
  /** Renders fixtures as OpenAI `role: "tool"` messages, skipping omitted ones. */
  openAiMessages(
    fixtures: readonly ToolResultFixture[],
  ): readonly OpenAiToolMessage[] {
    return fixtures
      .filter((fixture) => fixture.omitted !== true)
      .map((fixture) => ({
        role: 'tool',
        tool_call_id: fixture.callId,
        content: fixture.content ?? null,
      }));
  },
  /** Renders fixtures as one Anthropic `user` message of `tool_result` blocks. */
  anthropicMessage(fixtures: readonly ToolResultFixture[]): {
    readonly role: 'user';
    readonly content: readonly AnthropicToolResultBlock[];
  } {
    return {
      role: 'user',
      content: fixtures
        .filter((fixture) => fixture.omitted !== true)
        .map((fixture) => ({
          type: 'tool_result',
          tool_use_id: fixture.callId,
          ...(fixture.content === null ? {} : { content: fixture.content }),
          ...(fixture.isError === true ? { is_error: true } : {}),
        })),
    };
  },
} as const;
