/**
 * The slice of a pino-compatible logger the server uses. A pino `Logger` satisfies it.
 */
export interface TestServerLogger {
  /** Per-request detail: matches, deliveries, outcomes. */
  debug(object: object, message?: string): void;
  /** Requests the script did not expect: unmatched or rejected. */
  warn(object: object, message?: string): void;
}

/** The default logger: the server never prints unless a logger is injected. */
export const silentLogger: TestServerLogger = {
  debug: () => undefined,
  warn: () => undefined,
};
