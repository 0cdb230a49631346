import { describeThrown } from './describe-thrown.ts';
import { readProperty } from './read-foreign.ts';
import { retryAfterMsFrom, type HeaderSource } from './retry-after.ts';
import { classifiedError, type ClassifiedError } from './classified-error.ts';

export function httpStatusOf(thrown: object): number | undefined {
  const candidates = [
    readProperty(thrown, 'status'),
    readProperty(thrown, 'statusCode'),
    readProperty(readProperty(thrown, 'response'), 'status'),
  ];
  return candidates.find(
    (value): value is number =>
      typeof value === 'number' &&
      Number.isInteger(value) &&
      value >= 400 &&
      value <= 599,
  );
}

function headersOf(thrown: object): HeaderSource | undefined {
  const direct = readProperty(thrown, 'headers');
  const nested = readProperty(readProperty(thrown, 'response'), 'headers');
  const headers = direct ?? nested;
  return typeof headers === 'object' && headers !== null
    ? (headers as HeaderSource)
    : undefined;
}

export function fromHttpStatus(
  thrown: object,
  status: number,
  now: number | undefined,
): ClassifiedError {
  const described = describeThrown(thrown);
  const message = described.endsWith('(no message)')
    ? `HTTP ${status}`
    : described;
  const details = { status };
  switch (status) {
    case 400:
    case 422:
      return classifiedError('INVALID_PARAM', message, {
        details,
        cause: thrown,
      });
    case 401:
    case 403:
      return classifiedError('ACCESS_DENIED', message, {
        details,
        cause: thrown,
      });
    case 404:
    case 410:
      return classifiedError('NOT_FOUND', message, { details, cause: thrown });
    case 408:
    case 504:
      return classifiedError('TIMEOUT', message, { details, cause: thrown });
    case 409:
    case 412:
      return classifiedError('CONFLICT', message, { details, cause: thrown });
    case 429: {
      const retryAfterMs = retryAfterMsFrom(headersOf(thrown), now);
      return classifiedError('RATE_LIMIT', message, {
        details,
        cause: thrown,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    default:
      return classifiedError('API_ERROR', message, {
        details,
        retryable: status >= 500,
        cause: thrown,
      });
  }
}
