/**
 * What the server has sent that a real provider would later check: Anthropic's thinking
 * signatures, Gemini's thought signatures, OpenAI Responses' reasoning items. Strict mode
 * compares a request's replayed history with it, as the real APIs verify their own opaque
 * state, so a client that drops or edits that state gets the provider's 400.
 */
export class SentState {
  readonly #entries = new Map<string, unknown>();

  /** Remembers `value` under `key`; keys are namespaced by each protocol. */
  remember(key: string, value: unknown): void {
    this.#entries.set(key, value);
  }

  /** True when something was sent under `key`. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** What was sent under `key`, or undefined. */
  recall(key: string): unknown {
    return this.#entries.get(key);
  }
}
