import { guardLogger, type Logger } from '@candor/errors';
import { silentLogger, type TestServerLogger } from './test-server-logger.ts';

/**
 * The logger a test gave, made unable to throw: a method that throws, is missing, sits behind a
 * throwing getter or Proxy trap, or returns a promise that rejects, loses that one line, never a
 * request's answer. `undefined` gives {@link silentLogger}.
 *
 * The one `guardLogger` every package uses (it lives in `@candor/errors`, below this package): a
 * `TestServerLogger` is the `debug` and `warn` slice of a `Logger`, and the guard reads each
 * method on each line, so the levels it lacks are lines dropped, not errors.
 */
export function guardTestServerLogger(
  given: TestServerLogger | undefined,
): TestServerLogger {
  return given === undefined ? silentLogger : guardLogger(given as Logger);
}
