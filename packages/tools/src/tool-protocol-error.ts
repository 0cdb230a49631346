/**
 * A programming mistake against the protocol: an unknown code in a factory, an invalid tool name,
 * or a value that is not a valid `ToolResponse`. It names the field at fault.
 */
export class ToolProtocolError extends Error {
  /** The dotted path of the field at fault, or `''` for the value itself. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'ToolProtocolError';
    this.field = options.field;
  }
}
