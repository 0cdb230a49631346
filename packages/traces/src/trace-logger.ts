/**
 * The slice of a pino logger the package uses. Pass a pino logger (or anything with these two
 * methods); the default is silent because packages never print.
 */
export interface TraceLogger {
  /** Logs a detail useful only when tracing the reader itself. */
  debug(details: object, message: string): void;
  /** Logs a line that was skipped or could not be read. */
  warn(details: object, message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: TraceLogger = {
  debug() {
    // Silent by design.
  },
  warn() {
    // Silent by design.
  },
};
