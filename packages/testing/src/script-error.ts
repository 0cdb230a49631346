/**
 * A mistake in a test script, such as a step with no response, a duplicate step name or a
 * JSON path that can never match. It is thrown while the script is being defined, so the
 * test fails at the line that made the mistake rather than at a confusing request later.
 *
 * @example
 * try { server.conversation('c', (c) => { c.step('a'); }); }
 * catch (error: unknown) { if (error instanceof ScriptError) console.log(error.step); }
 */
export class ScriptError extends Error {
  /** The conversation the mistake is in. */
  readonly conversation: string;
  /** The step the mistake is in, when it belongs to one step. */
  readonly step: string | undefined;

  constructor(
    message: string,
    where: { readonly conversation: string; readonly step?: string },
  ) {
    const location =
      where.step === undefined
        ? `conversation "${where.conversation}"`
        : `step "${where.step}" of conversation "${where.conversation}"`;
    super(`${location}: ${message}`);
    this.name = 'ScriptError';
    this.conversation = where.conversation;
    this.step = where.step;
  }
}
