import { describeThrown } from './describe-thrown.ts';
import { readProperty } from './read-foreign.ts';
import { type ToolErrorCode } from './tool-error-code.ts';

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

/** Follows `cause` a few levels: fetch wraps the socket error as the cause of "fetch failed". */
export function systemCodeOf(
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
export function networkFactsOf(thrown: object): NetworkFacts | undefined {
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
export function networkMessage(facts: NetworkFacts): string | undefined {
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
export function httpParserFailureOf(
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
export function isRedirectLoop(thrown: object): boolean {
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
