import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import {
  hostHeaderValidation,
  originValidation,
} from '@modelcontextprotocol/node';
import {
  localhostAllowedHostnames,
  localhostAllowedOrigins,
} from '@modelcontextprotocol/server';
import { rpcError } from './json-rpc-http.ts';
import { requestTargetCheck } from './request-target-check.ts';
import { sameServerOrigin } from './same-server-origin.ts';

/** What {@link httpRequestGuard} checks. */
export interface HttpRequestGuardOptions {
  /** The address the server binds to: a specific one is also an allowed `Host`. */
  readonly host: string;
  readonly allowedHosts?: readonly string[] | undefined;
  readonly allowedOrigins?: readonly string[] | undefined;
  readonly bearerToken?: string | undefined;
  /** The port the server listens on: without `allowedOrigins`, an `Origin` must name it. */
  readonly port?: (() => number) | undefined;
}

/**
 * The checks every request passes before any routing, in the order a browser attack meets
 * them: `Host` and an absolute-form target's authority, then `Origin` (all 403, with the MCP SDK's own guards), then the bearer token
 * (401). Answers the refused request and returns false; returns true when it may go on.
 */
export function httpRequestGuard(
  options: HttpRequestGuardOptions,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const hosts = options.allowedHosts ?? [
    ...localhostAllowedHostnames(),
    ...boundHostname(options.host),
  ];
  const hostList = listOption('allowedHosts', hosts).map((host) =>
    host.toLowerCase(),
  );
  const checkHost = hostHeaderValidation(hostList);
  const checkTarget = requestTargetCheck(hostList);
  const checkOrigin =
    options.allowedOrigins === undefined && options.port !== undefined
      ? sameServerOrigin(options.port)
      : originValidation(
          listOption(
            'allowedOrigins',
            options.allowedOrigins ?? localhostAllowedOrigins(),
          ).map((host) => host.toLowerCase()),
        );
  const expected =
    options.bearerToken === undefined
      ? undefined
      : digest(`Bearer ${options.bearerToken}`);
  return (request, response) => {
    if (!checkHost(request, response)) return false;
    if (!checkTarget(request, response)) return false;
    if (!checkOrigin(request, response)) return false;
    if (authorised(request, expected)) return true;
    rpcError(response, 401, {
      code: -32001,
      message: 'Unauthorized',
      headers: { 'www-authenticate': 'Bearer' },
    });
    return false;
  };
}

/** A bound address clients can name in `Host`: none for a wildcard address. */
function boundHostname(host: string): string[] {
  if (host === '0.0.0.0' || host === '::') return [];
  return [isIP(host) === 6 ? `[${host}]` : host];
}

function listOption(name: string, value: unknown): string[] {
  if (
    !Array.isArray(value) ||
    !value.every((item) => typeof item === 'string' && item !== '')
  ) {
    throw new TypeError(
      `serveRegistry: ${name} must be an array of hostnames (no scheme or port), got ${JSON.stringify(value)}`,
    );
  }
  return value as string[];
}

function authorised(
  request: IncomingMessage,
  expected: Buffer | undefined,
): boolean {
  if (expected === undefined) return true;
  // Digests of equal length, compared in constant time: neither the token's bytes nor its
  // length can be guessed from how long a refusal takes.
  const header = request.headers.authorization ?? '';
  // The scheme name is case-insensitive (RFC 9110, section 11.1); the token itself is not.
  const given = /^bearer /i.test(header) ? `Bearer ${header.slice(7)}` : header;
  return timingSafeEqual(digest(given), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
