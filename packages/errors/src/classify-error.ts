import { cleanMessage, describeThrown } from './describe-thrown.ts';
import { readProperty } from './read-foreign.ts';
import { isToolErrorCode } from './tool-error-code.ts';
import { isToolError } from './tool-error.ts';
import { classifiedError, type ClassifiedError } from './classified-error.ts';
import { fromHttpStatus, httpStatusOf } from './http-status-error.ts';
import {
  httpParserFailureOf,
  isRedirectLoop,
  networkFactsOf,
  networkMessage,
  systemCodeOf,
} from './network-facts.ts';

/** Options for {@link classifyError}. */
export interface ClassifyOptions {
  /** The clock used to turn an HTTP-date `retry-after` into a delay. */
  readonly now?: number;
}

function fromToolError(thrown: object): ClassifiedError {
  const code = readProperty(thrown, 'code');
  const retryable = readProperty(thrown, 'retryable');
  const retryAfterMs = readProperty(thrown, 'retryAfterMs');
  const details = readProperty(thrown, 'details');
  const valid = isToolErrorCode(code) ? code : 'EXECUTION_ERROR';
  return classifiedError(valid, describeThrown(thrown), {
    ...(typeof retryable === 'boolean' ? { retryable } : {}),
    ...(typeof retryAfterMs === 'number' &&
    Number.isFinite(retryAfterMs) &&
    retryAfterMs >= 0
      ? { retryAfterMs }
      : {}),
    ...(typeof details === 'object' && details !== null
      ? { details: details as Record<string, unknown> }
      : {}),
    cause: thrown,
  });
}

function isZodError(thrown: object): boolean {
  return (
    readProperty(thrown, 'name') === 'ZodError' &&
    Array.isArray(readProperty(thrown, 'issues'))
  );
}

function fromZodError(thrown: object): ClassifiedError {
  const issues = (readProperty(thrown, 'issues') as unknown[])
    .slice(0, 20)
    .map((issue) => {
      const path = readProperty(issue, 'path');
      const message = readProperty(issue, 'message');
      return {
        path: Array.isArray(path)
          ? path.map((part) => String(part)).join('.')
          : '',
        message:
          typeof message === 'string' ? cleanMessage(message) : 'invalid value',
      };
    });
  const text = issues
    .map(({ path, message }) => (path === '' ? message : `${path}: ${message}`))
    .join('; ');
  return classifiedError(
    'INVALID_PARAM',
    text === '' ? 'Invalid arguments' : `Invalid arguments: ${text}`,
    {
      details: { issues },
      cause: thrown,
    },
  );
}

function classifyObject(
  thrown: object,
  now: number | undefined,
): ClassifiedError {
  if (isToolError(thrown)) return fromToolError(thrown);
  const name = readProperty(thrown, 'name');
  const code = readProperty(thrown, 'code');
  if (name === 'TimeoutError') {
    return classifiedError('TIMEOUT', describeThrown(thrown), {
      cause: thrown,
    });
  }
  if (name === 'AbortError' || code === 'ABORT_ERR') {
    // An abort whose reason was a timeout (AbortSignal.timeout) is a timeout, not a cancellation.
    if (
      readProperty(readProperty(thrown, 'cause'), 'name') === 'TimeoutError'
    ) {
      return classifiedError(
        'TIMEOUT',
        describeThrown(readProperty(thrown, 'cause')),
        {
          cause: thrown,
        },
      );
    }
    return classifiedError(
      'EXECUTION_ERROR',
      'The call was cancelled by the caller',
      {
        cancelled: true,
        retryable: false,
        cause: thrown,
      },
    );
  }
  if (isZodError(thrown)) return fromZodError(thrown);
  const status = httpStatusOf(thrown);
  if (status !== undefined) return fromHttpStatus(thrown, status, now);
  const system = systemCodeOf(thrown);
  if (system !== undefined) {
    const facts = networkFactsOf(thrown);
    const ownMessage =
      (facts === undefined ? undefined : networkMessage(facts)) ??
      describeThrown(thrown);
    return classifiedError(system.mapped, ownMessage, {
      details: { systemCode: system.code },
      cause: thrown,
    });
  }
  const parser = httpParserFailureOf(thrown);
  if (parser !== undefined) {
    return classifiedError('API_ERROR', parser.message, {
      retryable: false,
      details: { systemCode: parser.code },
      cause: thrown,
    });
  }
  if (isRedirectLoop(thrown)) {
    // The server's configuration, not a passing fault: retrying follows the same loop.
    return classifiedError(
      'NETWORK_ERROR',
      'Too many redirects: the server redirected more than 20 times (a redirect loop)',
      { retryable: false, details: { reason: 'redirect_loop' }, cause: thrown },
    );
  }
  if (name === 'SyntaxError') {
    return classifiedError('INVALID_FORMAT', describeThrown(thrown), {
      cause: thrown,
    });
  }
  return classifiedError('EXECUTION_ERROR', describeThrown(thrown), {
    cause: thrown,
  });
}

/**
 * The one boundary where anything thrown becomes a code, a readable message and retry hints.
 * It never throws, whatever it is given.
 *
 * @example
 * ```ts
 * try {
 *   await readFile(path);
 * } catch (error: unknown) {
 *   const { code, message } = classifyError(error); // ENOENT → NOT_FOUND
 * }
 * ```
 */
export function classifyError(
  thrown: unknown,
  options: ClassifyOptions = {},
): ClassifiedError {
  try {
    if (
      (typeof thrown === 'object' && thrown !== null) ||
      typeof thrown === 'function'
    ) {
      return classifyObject(thrown, options.now);
    }
    return classifiedError('EXECUTION_ERROR', describeThrown(thrown), {
      cause: thrown,
    });
  } catch {
    return classifiedError(
      'EXECUTION_ERROR',
      'An unreadable value was thrown',
      {
        cause: thrown,
      },
    );
  }
}
