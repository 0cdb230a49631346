import { types } from 'node:util';
import { silentLogger, type TestServerLogger } from './test-server-logger.ts';

type Level = 'debug' | 'warn';

const ignore = (): undefined => undefined;
// Taken at load, before any user code could replace it.
// eslint-disable-next-line @typescript-eslint/unbound-method -- only ever applied to a promise
const promiseThen = Promise.prototype.then;

/**
 * The logger a test gave, made unable to throw: a method that throws, is missing, sits behind a
 * throwing getter or Proxy trap, or returns a promise that rejects, loses that one line, never a
 * request's answer. `undefined` gives {@link silentLogger}.
 *
 * Not `guardLogger` from `@candor/tools`: `@candor/testing` sits on the same layer as tools
 * (tests/layers.ts), so it may not depend on it, and it logs only `debug` and `warn`.
 */
export function guardTestServerLogger(
  given: TestServerLogger | undefined,
): TestServerLogger {
  if (given === undefined) return silentLogger;
  const method =
    (level: Level) =>
    (...line: Parameters<TestServerLogger[Level]>): void => {
      try {
        // Read on every line, not once: a getter or Proxy that throws costs only this line.
        const write: unknown = Reflect.get(given, level);
        if (typeof write !== 'function') return;
        const result: unknown = Reflect.apply(write, given, line);
        // An async logger's rejection would otherwise surface as an unhandled rejection. The brand
        // check and the intrinsic `then` hold for a promise whose own `then`, prototype or subclass
        // was tampered with.
        if (types.isPromise(result)) {
          void Reflect.apply(promiseThen, result, [undefined, ignore]);
        }
      } catch {
        // A broken logger must not cost a scripted answer, nor leave a journal waiter hanging.
      }
    };
  return Object.freeze({ debug: method('debug'), warn: method('warn') });
}
