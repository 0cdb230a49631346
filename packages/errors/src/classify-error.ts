import { codeMetadata } from './code-metadata.ts';
import {
  cleanMessage,
  describeThrown,
  readProperty,
} from './describe-thrown.ts';
import { retryAfterMsFrom, type HeaderSource } from './retry-after.ts';
import { isToolErrorCode, type ToolErrorCode } from './tool-error-code.ts';
import { isToolError } from './tool-error.ts';

/** Anything thrown, reduced to what a `ToolResponse` needs. */
export interface ClassifiedError {
  readonly code: ToolErrorCode;
  /** Readable, bounded, and never a stack trace. */
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly details?: Readonly<Record<string, unknown>>;
  /**
   * The caller cancelled the call (its own AbortSignal), as opposed to a timeout. A cancelled call
   * says nothing about the tool's health and never counts toward a breaker.
   */
  readonly cancelled?: true;
  /** The original thrown value, for logs. Never shown to a model. */
  readonly cause: unknown;
}

/** Options for {@link classifyError}. */
export interface ClassifyOptions {
  /** The clock used to turn an HTTP-date `retry-after` into a delay. */
  readonly now?: number;
}

const systemCodes: Readonly<Record<string, ToolErrorCode>> = {
  ENOENT: 'NOT_FOUND',
  ENOTDIR: 'NOT_FOUND',
  EACCES: 'PERMISSION_DENIED',
  EPERM: 'PERMISSION_DENIED',
  EISDIR: 'IS_DIRECTORY',
  EEXIST: 'CONFLICT',
  ENOTEMPTY: 'CONFLICT',
  ETIMEDOUT: 'TIMEOUT',
  ECONNREFUSED: 'NETWORK_ERROR',
  ECONNRESET: 'NETWORK_ERROR',
  ENOTFOUND: 'NETWORK_ERROR',
  EAI_AGAIN: 'NETWORK_ERROR',
  EPIPE: 'NETWORK_ERROR',
  EHOSTUNREACH: 'NETWORK_ERROR',
  ENETUNREACH: 'NETWORK_ERROR',
  ECONNABORTED: 'NETWORK_ERROR',
  // undici, behind Node's global fetch, reports its own codes on the `cause` of "fetch failed".
  UND_ERR_CONNECT_TIMEOUT: 'TIMEOUT',
  UND_ERR_HEADERS_TIMEOUT: 'TIMEOUT',
  UND_ERR_BODY_TIMEOUT: 'TIMEOUT',
  UND_ERR_SOCKET: 'NETWORK_ERROR',
};

// userinfo (`user:pass@`) in any URL (up to its last `@`, as URL parsers read a raw `@` in a
// password), and parameters of a query or fragment whose name says they are a secret. Each
// pattern can start only at a short scheme or at a delimiter, and no part can run across
// another's start, so the time is linear in the text: a hostile URL cannot stall the process.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#]*@/gi;
const PARAMETER_NAME = /[?&#;]([^=&#;?\s]*)=/g;
const SECRET_NAME = /token|key|secret|passw|pwd|auth|sig|session|credential/i;
// A secret value runs to the next `&`, `#` or space: a `?` or `;` inside it is still secret.
const VALUE_END = /[&#\s]|$/g;

function scrubParameters(text: string): string {
  let out = '';
  let copied = 0;
  PARAMETER_NAME.lastIndex = 0;
  for (
    let found = PARAMETER_NAME.exec(text);
    found !== null;
    found = PARAMETER_NAME.exec(text)
  ) {
    if (!SECRET_NAME.test(found[1] ?? '')) continue;
    VALUE_END.lastIndex = PARAMETER_NAME.lastIndex;
    const end = VALUE_END.exec(text)?.index ?? text.length;
    out += `${text.slice(copied, PARAMETER_NAME.lastIndex)}***`;
    copied = end;
    PARAMETER_NAME.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Replaces credentials in URLs inside `text` with `***`: the userinfo part and query (or
 * fragment) values whose names say they are secret (`token`, `api_key`, `password`, `sig`,
 * ...). Messages often quote the URL that failed; the model and the logs must not see its
 * secrets.
 */
export function scrubUrlSecrets(text: string): string {
  return scrubParameters(text.replace(URL_USERINFO, '$1***@'));
}

function result(
  code: ToolErrorCode,
  message: string,
  fields: Partial<Omit<ClassifiedError, 'code' | 'message'>> & {
    cause: unknown;
  },
): ClassifiedError {
  return {
    code,
    message: scrubUrlSecrets(message),
    retryable: fields.retryable ?? codeMetadata[code].retryable,
    ...(fields.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: fields.retryAfterMs }),
    ...(fields.details === undefined ? {} : { details: fields.details }),
    ...(fields.cancelled === true ? { cancelled: true as const } : {}),
    cause: fields.cause,
  };
}

function fromToolError(thrown: object): ClassifiedError {
  const code = readProperty(thrown, 'code');
  const retryable = readProperty(thrown, 'retryable');
  const retryAfterMs = readProperty(thrown, 'retryAfterMs');
  const details = readProperty(thrown, 'details');
  const valid = isToolErrorCode(code) ? code : 'EXECUTION_ERROR';
  return result(valid, describeThrown(thrown), {
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

/** Follows `cause` a few levels: fetch wraps the socket error as the cause of "fetch failed". */
function systemCodeOf(
  thrown: object,
): { code: string; mapped: ToolErrorCode } | undefined {
  let current: unknown = thrown;
  for (
    let depth = 0;
    depth < 4 && typeof current === 'object' && current !== null;
    depth++
  ) {
    const code = readProperty(current, 'code');
    if (typeof code === 'string' && Object.hasOwn(systemCodes, code)) {
      const mapped = systemCodes[code];
      if (mapped !== undefined) return { code, mapped };
    }
    current = readProperty(current, 'cause');
  }
  return undefined;
}

interface NetworkFacts {
  readonly code: string;
  readonly message: string;
  readonly host: string | undefined;
  readonly port: number | undefined;
}

/** The first error in the cause chain (or an AggregateError's first error) with a string code. */
function networkFactsOf(thrown: object): NetworkFacts | undefined {
  let current: unknown = thrown;
  for (let depth = 0; depth < 5 && typeof current === 'object'; depth++) {
    if (current === null) return undefined;
    const code = readProperty(current, 'code');
    const errors = readProperty(current, 'errors');
    // An AggregateError (one attempt per address) carries the code, its errors the address.
    if (Array.isArray(errors) && errors.length > 0) {
      current = errors[0] as unknown;
      continue;
    }
    if (typeof code === 'string' && Object.hasOwn(systemCodes, code)) {
      const socket = readProperty(current, 'socket');
      const host =
        readProperty(current, 'hostname') ??
        readProperty(current, 'address') ??
        readProperty(socket, 'remoteAddress');
      const port =
        readProperty(current, 'port') ?? readProperty(socket, 'remotePort');
      return {
        code,
        message: describeThrown(current),
        host: typeof host === 'string' && host !== '' ? host : undefined,
        port: typeof port === 'number' ? port : undefined,
      };
    }
    current = readProperty(current, 'cause');
  }
  return undefined;
}

function where(facts: NetworkFacts): string {
  if (facts.host === undefined) return 'the server';
  const host = facts.host.includes(':') ? `[${facts.host}]` : facts.host;
  return facts.port === undefined ? host : `${host}:${facts.port}`;
}

/**
 * A sentence naming what happened on the network, or undefined for codes that are not about a
 * connection. "fetch failed" alone hides the cause; the socket error in its `cause` has it.
 */
function networkMessage(facts: NetworkFacts): string | undefined {
  switch (facts.code) {
    case 'ECONNREFUSED':
      return `Connection refused by ${where(facts)}: nothing accepts connections there (ECONNREFUSED)`;
    case 'ECONNRESET':
      return `Connection reset by ${where(facts)} (ECONNRESET)`;
    case 'ENOTFOUND':
      return `DNS lookup failed for ${facts.host ?? 'the host'}: no such host (ENOTFOUND)`;
    case 'EAI_AGAIN':
      return `DNS lookup failed for ${facts.host ?? 'the host'}: temporary failure in name resolution (EAI_AGAIN)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where(facts)} is unreachable from this machine (${facts.code})`;
    case 'ECONNABORTED':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return `The connection to ${where(facts)} was closed unexpectedly: ${facts.message} (${facts.code})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Connecting to ${where(facts)} timed out (${facts.code})`;
    default:
      return undefined;
  }
}

/**
 * undici's HTTP parser codes (`HPE_…`, and `UND_ERR_HEADERS_OVERFLOW` for headers past its size
 * limit), on the `cause` of "fetch failed": the server answered,
 * but not in HTTP (another protocol on the port, a header past the size limit). Retrying gets
 * the same answer.
 */
function httpParserFailureOf(
  thrown: object,
): { code: string; message: string } | undefined {
  let current: unknown = thrown;
  for (let depth = 0; depth < 4 && typeof current === 'object'; depth++) {
    const code = readProperty(current, 'code');
    if (
      typeof code === 'string' &&
      (code.startsWith('HPE_') || code === 'UND_ERR_HEADERS_OVERFLOW')
    ) {
      return {
        code,
        message: `The server's answer is not valid HTTP: ${describeThrown(current)} (${code})`,
      };
    }
    current = readProperty(current, 'cause');
  }
  return undefined;
}

/** undici (behind Node's fetch) gives up after 20 redirects with this cause and no code. */
function isRedirectLoop(thrown: object): boolean {
  let current: unknown = thrown;
  for (let depth = 0; depth < 4; depth++) {
    const message = readProperty(current, 'message');
    if (
      typeof message === 'string' &&
      /redirect count exceeded/i.test(message)
    ) {
      return true;
    }
    current = readProperty(current, 'cause');
    if (typeof current !== 'object' || current === null) return false;
  }
  return false;
}

function httpStatusOf(thrown: object): number | undefined {
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

function fromHttpStatus(
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
      return result('INVALID_PARAM', message, { details, cause: thrown });
    case 401:
    case 403:
      return result('ACCESS_DENIED', message, { details, cause: thrown });
    case 404:
    case 410:
      return result('NOT_FOUND', message, { details, cause: thrown });
    case 408:
    case 504:
      return result('TIMEOUT', message, { details, cause: thrown });
    case 409:
    case 412:
      return result('CONFLICT', message, { details, cause: thrown });
    case 429: {
      const retryAfterMs = retryAfterMsFrom(headersOf(thrown), now);
      return result('RATE_LIMIT', message, {
        details,
        cause: thrown,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    default:
      return result('API_ERROR', message, {
        details,
        retryable: status >= 500,
        cause: thrown,
      });
  }
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
  return result(
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
    return result('TIMEOUT', describeThrown(thrown), { cause: thrown });
  }
  if (name === 'AbortError' || code === 'ABORT_ERR') {
    // An abort whose reason was a timeout (AbortSignal.timeout) is a timeout, not a cancellation.
    if (
      readProperty(readProperty(thrown, 'cause'), 'name') === 'TimeoutError'
    ) {
      return result('TIMEOUT', describeThrown(readProperty(thrown, 'cause')), {
        cause: thrown,
      });
    }
    return result('EXECUTION_ERROR', 'The call was cancelled by the caller', {
      cancelled: true,
      retryable: false,
      cause: thrown,
    });
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
    return result(system.mapped, ownMessage, {
      details: { systemCode: system.code },
      cause: thrown,
    });
  }
  const parser = httpParserFailureOf(thrown);
  if (parser !== undefined) {
    return result('API_ERROR', parser.message, {
      retryable: false,
      details: { systemCode: parser.code },
      cause: thrown,
    });
  }
  if (isRedirectLoop(thrown)) {
    // The server's configuration, not a passing fault: retrying follows the same loop.
    return result(
      'NETWORK_ERROR',
      'Too many redirects: the server redirected more than 20 times (a redirect loop)',
      { retryable: false, details: { reason: 'redirect_loop' }, cause: thrown },
    );
  }
  if (name === 'SyntaxError') {
    return result('INVALID_FORMAT', describeThrown(thrown), { cause: thrown });
  }
  return result('EXECUTION_ERROR', describeThrown(thrown), { cause: thrown });
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
    return result('EXECUTION_ERROR', describeThrown(thrown), { cause: thrown });
  } catch {
    return result('EXECUTION_ERROR', 'An unreadable value was thrown', {
      cause: thrown,
    });
  }
}
