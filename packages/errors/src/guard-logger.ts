import { types } from 'node:util';
import { type Logger, type LogMethod, silentLogger } from './logger.ts';

type Bindings = Readonly<Record<string, unknown>>;
type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

// Loggers that cannot throw: the silent default and every logger made here. Neither is wrapped
// again, so a guarded logger handed from one package to the next costs one wrapper, not one each.
const guarded = new WeakSet<object>([silentLogger]);

const ignore = (): undefined => undefined;
// Taken at load, before any user code could replace it.
// eslint-disable-next-line @typescript-eslint/unbound-method -- only ever applied to a promise
const promiseThen = Promise.prototype.then;

/**
 * Turns the logger a user gave into one that never throws. `undefined` gives `silentLogger`
 * itself, so callers can still skip building fields for it; a logger already guarded is returned
 * as is. With `bindings`, the result is the guarded logger's `child(bindings)`.
 *
 * Each line goes to the user's logger with `this` bound to it, as pino needs. A method that
 * throws, is missing, sits behind a throwing getter or Proxy trap, or returns a promise that
 * rejects, loses that one line: logging must never change a call's outcome.
 */
export function guardLogger(
  given: Logger | undefined,
  bindings?: Bindings,
): Logger {
  const safe =
    given === undefined
      ? silentLogger
      : guarded.has(given)
        ? given
        : wrap(given);
  return bindings === undefined ? safe : safe.child(bindings);
}

function wrap(target: Logger): Logger {
  const method =
    (level: Level): LogMethod =>
    (...line) => {
      try {
        // Read on every line, not once: a getter or Proxy that throws costs only this line.
        const write: unknown = target[level];
        if (typeof write !== 'function') return;
        const result: unknown = Reflect.apply(write, target, line);
        // An async logger's rejection would otherwise surface as an unhandled rejection. The brand
        // check and the intrinsic `then` hold for a promise whose own `then`, prototype or subclass
        // was tampered with, and cost nothing for a logger that returns `this` (winston).
        if (types.isPromise(result)) {
          void Reflect.apply(promiseThen, result, [undefined, ignore]);
        }
      } catch {
        // A broken logger must not turn a tool's answer into an error, nor a shutdown into a throw.
      }
    };
  const logger: Logger = Object.freeze({
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    child: (bindings: Bindings): Logger => {
      let child: unknown;
      try {
        const make: unknown = Reflect.get(target, 'child');
        if (typeof make === 'function') {
          child = Reflect.apply(make, target, [bindings]);
        }
        // A promise (an async child factory) is no logger, and its rejection must not go unhandled.
        if (types.isPromise(child)) {
          void Reflect.apply(promiseThen, child, [undefined, ignore]);
          child = undefined;
        }
      } catch {
        child = undefined;
      }
      const usable =
        (typeof child === 'object' && child !== null) ||
        typeof child === 'function';
      // A child that cannot be made logs through its parent: the bindings are lost, the lines are not.
      return usable ? guardLogger(child as Logger) : logger;
    },
  });
  guarded.add(logger);
  return logger;
}
