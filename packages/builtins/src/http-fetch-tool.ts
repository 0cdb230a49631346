import { classifyError, scrubUrlSecrets } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { fetch, type Response } from 'undici';
import { z } from 'zod';
import { AddressPolicy } from './address-policy.ts';
import { errorResponse } from './error-response.ts';
import {
  BlockedAddressError,
  guardedDispatcher,
} from './guarded-dispatcher.ts';
import { positiveOption } from './positive-option.ts';
import { builtinTraits } from './builtin-annotations.ts';

/** Options of {@link httpFetchTool}. */
export interface HttpFetchToolOptions {
  /** Default time limit of a request, headers and body included. 30 000 ms. */
  readonly timeoutMs?: number;
  /** The highest time limit a call may ask for. 120 000 ms. */
  readonly maxTimeoutMs?: number;
  /** Bytes of body kept; a longer body is PARTIAL. 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Headers sent with every request; a call's own headers win. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Internal addresses it may reach after all: hosts (`localhost`, `db.internal`), hosts with a
   * port (`127.0.0.1:8080`, `[::1]:9000`), IP addresses or CIDR ranges (`10.0.0.0/8`). By
   * default it reaches public addresses only: loopback, private (RFC 1918, unique-local
   * `fc00::/7`), link-local, cloud metadata (`169.254.169.254`, `fd00:ec2::254`), carrier-grade
   * NAT, unspecified, multicast and reserved addresses, IPv4-mapped ones included (and the
   * IPv4-compatible, IPv4-translated and local-use NAT64 IPv6 forms), answer
   * ACCESS_DENIED. A host entry allows whatever its name resolves to.
   */
  readonly allowHosts?: readonly string[];
}

/** The {@link BlockedAddressError} somewhere in `error`'s chain of causes. */
function blockedCause(error: unknown): BlockedAddressError | undefined {
  for (let cause = error, depth = 0; depth < 8; depth += 1) {
    if (cause instanceof BlockedAddressError) return cause;
    if (typeof cause !== 'object' || cause === null) return undefined;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** How much of an error response's body is kept for the model to read. */
const ERROR_BODY_BYTES = 2048;

interface Body {
  readonly text: string;
  readonly bytes: number;
  readonly truncated: boolean;
}

/** Reads at most `cap` bytes of a body and cancels the rest, so a huge body costs no memory. */
async function readBody(response: Response, cap: number): Promise<Body> {
  if (response.body === null) return { text: '', bytes: 0, truncated: false };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  // Leaving the loop early cancels the stream, so the rest of the body is never downloaded.
  for await (const value of response.body as AsyncIterable<Uint8Array>) {
    const room = cap - bytes;
    if (value.length > room) {
      chunks.push(value.subarray(0, room));
      bytes += room;
      truncated = true;
      break;
    }
    chunks.push(value);
    bytes += value.length;
  }
  // Streaming decode: a character cut by the cap is dropped, not shown as garbage.
  return {
    text: new TextDecoder().decode(Buffer.concat(chunks), {
      stream: truncated,
    }),
    bytes,
    truncated,
  };
}

// RFC 9110 field names are tokens; values may not hold CR, LF or NUL (no header injection).
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE_FORBIDDEN = /[\r\n\0]/;

/** Why the headers cannot be sent, or undefined when they can. */
function checkHeaders(
  headers: Readonly<Record<string, string>>,
): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) {
      return `Invalid header name ${JSON.stringify(name)}: letters, digits and !#$%&'*+-.^_\`|~ only, no spaces`;
    }
    if (HEADER_VALUE_FORBIDDEN.test(value)) {
      return `Invalid value for header ${name}: it contains a line break or NUL character`;
    }
  }
  return undefined;
}

function parseJson(body: Body, contentType: string): unknown {
  if (body.truncated || !/\bjson\b/i.test(contentType)) return undefined;
  try {
    return JSON.parse(body.text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * `http_fetch`: a GET or POST over HTTP(S), with a time limit and a body cap.
 *
 * Outcomes: SUCCESS for 1xx-3xx (redirects are followed) with status, headers and body in
 * `data` (and `json` for a complete JSON body); PARTIAL (`reason: 'body_cap'`) when the body is
 * longer than the cap. Error statuses go through `classifyError`: 404/410 NOT_FOUND, 401/403
 * ACCESS_DENIED, 429 RATE_LIMIT with `retryAfterMs` from `Retry-After`, 5xx API_ERROR (and 400
 * INVALID_PARAM, 408/504 TIMEOUT, 409 CONFLICT). Connection failures are NETWORK_ERROR, the time
 * limit TIMEOUT, and a URL that is not http(s) INVALID_PARAM.
 *
 * It stays outside the machine: every connection, each redirect's included, is checked on the
 * address actually connected to (after DNS, so a name rebound to 127.0.0.1 cannot pass), and an
 * internal address (loopback, private, link-local, cloud metadata, …) answers ACCESS_DENIED
 * before any request is sent, unless `allowHosts` lists it.
 *
 * @example
 * ```ts
 * registry.register(httpFetchTool({ timeoutMs: 10_000 }));
 * await registry.call('http_fetch', { url: 'https://example.com/api/items' });
 * ```
 */
export function httpFetchTool(options: HttpFetchToolOptions = {}) {
  const timeoutMs = positiveOption(
    'httpFetchTool: timeoutMs',
    options.timeoutMs,
    30_000,
  );
  const maxTimeoutMs = positiveOption(
    'httpFetchTool: maxTimeoutMs',
    options.maxTimeoutMs,
    Math.max(120_000, timeoutMs),
  );
  const maxBodyBytes = positiveOption(
    'httpFetchTool: maxBodyBytes',
    options.maxBodyBytes,
    1024 * 1024,
  );
  const dispatcher = guardedDispatcher(new AddressPolicy(options.allowHosts));
  return defineTool({
    name: 'http_fetch',
    ...builtinTraits('http_fetch'),
    description:
      'Sends an HTTP GET or POST and returns status, headers and body. ' +
      `Error statuses come back as errors with their code; bodies over ${maxBodyBytes} bytes come back partial.`,
    input: z.object({
      url: z.string().min(1).describe('An http:// or https:// URL'),
      method: z.enum(['GET', 'POST']).default('GET'),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .describe('Request headers'),
      body: z.string().optional().describe('Request body, for POST'),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .max(maxTimeoutMs)
        .optional()
        .describe(`Time limit in milliseconds. Default ${timeoutMs}.`),
    }),
    run: async (input, context) => {
      let url: URL;
      try {
        url = new URL(input.url);
      } catch {
        return ToolResponse.error(
          'INVALID_PARAM',
          `Not a valid URL: ${JSON.stringify(input.url)}`,
        );
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return ToolResponse.error(
          'INVALID_PARAM',
          `Only http and https URLs are supported, got ${url.protocol}`,
        );
      }
      if (url.username !== '' || url.password !== '') {
        return ToolResponse.error(
          'INVALID_PARAM',
          'URLs with credentials (user:password@) are not accepted; send them in an Authorization header',
        );
      }
      const headerProblem = checkHeaders({
        ...options.headers,
        ...input.headers,
      });
      if (headerProblem !== undefined) {
        return ToolResponse.error('INVALID_PARAM', headerProblem);
      }
      if (input.method === 'GET' && input.body !== undefined) {
        return ToolResponse.error(
          'INVALID_PARAM',
          'A GET request cannot have a body; use method POST',
        );
      }
      const limit = input.timeoutMs ?? timeoutMs;
      const timeout = new AbortController();
      const timer = setTimeout(() => {
        timeout.abort(
          new DOMException(
            `No complete response from ${url.host} within ${limit} ms`,
            'TimeoutError',
          ),
        );
      }, limit);
      const signal = AbortSignal.any([context.signal, timeout.signal]);
      // Every answer names the URL with its secrets (`?token=`, `?api_key=`) replaced by `***`.
      const shownUrl = scrubUrlSecrets(url.href);
      const request = { method: input.method, url: shownUrl };
      try {
        const response = await fetch(url, {
          method: input.method,
          headers: { ...options.headers, ...input.headers },
          ...(input.body === undefined ? {} : { body: input.body }),
          redirect: 'follow',
          signal,
          dispatcher,
        });
        const headers = Object.fromEntries(response.headers.entries());
        const contentType = response.headers.get('content-type') ?? '';
        if (response.status >= 400) {
          const body = await readBody(response, ERROR_BODY_BYTES);
          const classified = classifyError(
            Object.assign(new Error(`HTTP ${response.status}`), {
              status: response.status,
              headers: response.headers,
            }),
          );
          const message = `${input.method} ${shownUrl} answered ${response.status}${
            response.statusText === '' ? '' : ` ${response.statusText}`
          }`;
          return ToolResponse.error(classified.code, message, {
            retryable: classified.retryable,
            ...(classified.retryAfterMs === undefined
              ? {}
              : { retryAfterMs: classified.retryAfterMs }),
            details: { status: response.status },
            data: {
              ...request,
              status: response.status,
              headers,
              body: body.text,
            },
            text: body.text === '' ? message : `${message}\n${body.text}`,
          });
        }
        const body = await readBody(response, maxBodyBytes);
        const json = parseJson(body, contentType);
        const data = {
          ...request,
          status: response.status,
          headers,
          body: body.text,
          bytes: body.bytes,
          ...(json === undefined ? {} : { json }),
        };
        if (!body.truncated) return ToolResponse.success(body.text, { data });
        return ToolResponse.partial(
          `${body.text}\n[http_fetch: the body was cut at ${maxBodyBytes} bytes]`,
          { reason: 'body_cap', data: { ...data, truncated: true } },
        );
      } catch (error: unknown) {
        const blocked = blockedCause(error);
        if (blocked !== undefined) {
          return ToolResponse.error(
            'ACCESS_DENIED',
            `${input.method} ${shownUrl} refused: ${blocked.message}`,
            { retryable: false, data: request },
          );
        }
        // The time limit is ours: report it as such, not as the caller cancelling.
        const reason: unknown =
          timeout.signal.aborted && !context.signal.aborted
            ? timeout.signal.reason
            : context.signal.aborted
              ? context.signal.reason
              : error;
        const failed = errorResponse(reason, undefined, request);
        return ToolResponse.error(
          failed.errorInfo.code,
          `${input.method} ${shownUrl} failed: ${failed.errorInfo.message}`,
          {
            retryable: failed.errorInfo.retryable,
            ...(failed.errorInfo.cancelled === true ? { cancelled: true } : {}),
            ...(failed.errorInfo.details === undefined
              ? {}
              : { details: failed.errorInfo.details }),
            data: request,
          },
        );
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
