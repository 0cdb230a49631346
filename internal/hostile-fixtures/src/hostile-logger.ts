/**
 * The shape of a pino-compatible logger, as `Logger` in `@candor/tools` spells it. This package
 * sits below every other (tests/layers.ts), so it cannot import that type; a `HostileLogger` is
 * assignable to it, and to any narrower logger (the test server's `debug` and `warn`).
 */
export interface HostileLogger {
  readonly trace: HostileLogMethod;
  readonly debug: HostileLogMethod;
  readonly info: HostileLogMethod;
  readonly warn: HostileLogMethod;
  readonly error: HostileLogMethod;
  readonly child: (
    bindings: Readonly<Record<string, unknown>>,
  ) => HostileLogger;
}

/** One log method: an object of fields, then an optional message. */
export type HostileLogMethod = (fields: object, message?: string) => void;

/** The six members every hostile logger here defines, in pino's order. */
export const LOGGER_MEMBERS = [
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'child',
] as const;

/**
 * A logger whose every method throws `Error('logger down')`; `child` returns the same logger.
 * `attempts` counts the lines a package tried to write, so a test can show the guarantee was
 * exercised, not skipped.
 */
export function throwingLogger(): {
  logger: HostileLogger;
  attempts: () => number;
} {
  let attempts = 0;
  const boom = (): never => {
    attempts += 1;
    throw new Error('logger down');
  };
  const logger: HostileLogger = {
    trace: boom,
    debug: boom,
    info: boom,
    warn: boom,
    error: boom,
    child: () => logger,
  };
  return { logger, attempts: () => attempts };
}

/**
 * A logger that cannot even be inspected: each of its six members is a getter that throws
 * `Error('getter down')`. `reads` counts the reads.
 */
export function throwingGetters(): {
  logger: HostileLogger;
  reads: () => number;
} {
  let reads = 0;
  const boom = (): never => {
    reads += 1;
    throw new Error('getter down');
  };
  const logger = Object.defineProperties(
    {},
    Object.fromEntries(LOGGER_MEMBERS.map((member) => [member, { get: boom }])),
  ) as HostileLogger;
  return { logger, reads: () => reads };
}

/**
 * An async logger, as a transport-backed one can be: every method returns a promise that rejects
 * with `Error('async logger down')` and carries a `then` of its own that attaches nothing, so
 * only the intrinsic `Promise.prototype.then` can handle it. `unhandled` stops listening and
 * says how many of its rejections Node reported as unhandled; call it once, at the end, after
 * two `setImmediate` turns.
 */
export function rejectingLogger(): {
  logger: HostileLogger;
  attempts: () => number;
  unhandled: () => number;
} {
  let attempts = 0;
  let unhandled = 0;
  const onUnhandled = (reason: unknown): void => {
    if (reason instanceof Error && reason.message === 'async logger down') {
      unhandled += 1;
    }
  };
  process.on('unhandledRejection', onUnhandled);
  const reject = (): Promise<never> => {
    attempts += 1;
    const promise = Promise.reject(new Error('async logger down'));
    void Object.defineProperty(promise, 'then', { value: () => undefined });
    return promise;
  };
  // Deliberately async: the methods' promises are not void, which the logger type hides.
  const asyncLogger = {
    trace: reject,
    debug: reject,
    info: reject,
    warn: reject,
    error: reject,
    child: (): HostileLogger => logger,
  };
  const logger: HostileLogger = asyncLogger;
  return {
    logger,
    attempts: () => attempts,
    unhandled: () => {
      process.off('unhandledRejection', onUnhandled);
      return unhandled;
    },
  };
}
