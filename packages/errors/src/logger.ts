/** One log method of a pino-compatible logger: an object of fields, then an optional message. */
export type LogMethod = (
  fields: Readonly<Record<string, unknown>>,
  message?: string,
) => void;

/**
 * The part of pino's interface Candor uses. Pass a pino logger (or anything shaped like it);
 * packages never create loggers or print on their own.
 */
export interface Logger {
  readonly trace: LogMethod;
  readonly debug: LogMethod;
  readonly info: LogMethod;
  readonly warn: LogMethod;
  readonly error: LogMethod;
  /** A logger that adds `bindings` to every line, as pino's `child()` does. */
  child(bindings: Readonly<Record<string, unknown>>): Logger;
}

const noop: LogMethod = () => undefined;

/** The default logger: writes nothing. */
export const silentLogger: Logger = Object.freeze({
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
});
