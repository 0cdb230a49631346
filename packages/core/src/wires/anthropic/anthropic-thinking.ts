/**
 * Claude's extended thinking, in the two forms the Messages API takes
 * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking,
 * https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking):
 *
 * - `{ type: 'enabled', budgetTokens }`: a fixed budget (at least 1024 tokens), for models up to
 *   the 4.5 generation; deprecated on 4.6 models and refused by newer ones. `interleaved: true`
 *   sends the `interleaved-thinking-2025-05-14` beta header so Claude 4 models think between
 *   tool calls.
 * - `{ type: 'adaptive', effort? }`: Claude decides how much to think; `effort` is sent as
 *   `output_config.effort`. Interleaved thinking comes with it, no beta header needed.
 *
 * `display: 'omitted'` asks for thinking blocks without their text: each still carries its
 * signature, and is replayed like any other.
 */
export type AnthropicThinking =
  | {
      readonly type: 'enabled';
      readonly budgetTokens: number;
      readonly display?: AnthropicThinkingDisplay;
      readonly interleaved?: boolean;
    }
  | {
      readonly type: 'adaptive';
      readonly effort?: AnthropicEffort;
      readonly display?: AnthropicThinkingDisplay;
    }
  | { readonly type: 'disabled' };

/** How thinking blocks come back: with their (summarised) text, or with it left out. */
export type AnthropicThinkingDisplay = 'summarized' | 'omitted';

/** `output_config.effort` values of the Messages API (`max` and `xhigh` only on some models). */
export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

const EFFORTS: ReadonlySet<string> = new Set([
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
]);
const DISPLAYS: ReadonlySet<string> = new Set(['summarized', 'omitted']);

/** The beta header value that turns on interleaved thinking with a fixed budget. */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';

/** What the thinking option adds to a request: body fields and beta headers. */
export interface ThinkingRequest {
  readonly body: Readonly<Record<string, unknown>>;
  readonly betas: readonly string[];
}

function checkDisplay(display: unknown): void {
  if (
    display !== undefined &&
    !(typeof display === 'string' && DISPLAYS.has(display))
  )
    throw new TypeError(
      `anthropic: thinking.display must be 'summarized' or 'omitted', got ${JSON.stringify(display)}`,
    );
}

/**
 * The thinking option checked once, as the request fields it becomes. The model-specific rules
 * (which form a model takes, budget below `max_tokens`, no `temperature`) are Anthropic's: its
 * 400 comes back with its message.
 */
export function thinkingRequest(thinking: unknown): ThinkingRequest {
  if (thinking === undefined) return { body: {}, betas: [] };
  if (typeof thinking !== 'object' || thinking === null)
    throw new TypeError(
      "anthropic: thinking must be { type: 'enabled', budgetTokens }, { type: 'adaptive' } or { type: 'disabled' }",
    );
  const option = thinking as Record<string, unknown>;
  switch (option['type']) {
    case 'enabled': {
      const budget = option['budgetTokens'];
      if (
        typeof budget !== 'number' ||
        !Number.isSafeInteger(budget) ||
        budget < 1024
      )
        throw new RangeError(
          `anthropic: thinking.budgetTokens must be an integer of at least 1024, got ${String(budget)}`,
        );
      checkDisplay(option['display']);
      return {
        body: {
          thinking: {
            type: 'enabled',
            budget_tokens: budget,
            ...(option['display'] === undefined
              ? {}
              : { display: option['display'] }),
          },
        },
        betas:
          option['interleaved'] === true ? [INTERLEAVED_THINKING_BETA] : [],
      };
    }
    case 'adaptive': {
      const effort = option['effort'];
      if (
        effort !== undefined &&
        !(typeof effort === 'string' && EFFORTS.has(effort))
      )
        throw new TypeError(
          `anthropic: thinking.effort must be one of ${[...EFFORTS].join(', ')}, got ${JSON.stringify(effort)}`,
        );
      checkDisplay(option['display']);
      return {
        body: {
          thinking: {
            type: 'adaptive',
            ...(option['display'] === undefined
              ? {}
              : { display: option['display'] }),
          },
          ...(effort === undefined ? {} : { output_config: { effort } }),
        },
        betas: [],
      };
    }
    case 'disabled':
      return { body: { thinking: { type: 'disabled' } }, betas: [] };
    default:
      throw new TypeError(
        `anthropic: thinking.type must be 'enabled', 'adaptive' or 'disabled', got ${JSON.stringify(option['type'])}`,
      );
  }
}
