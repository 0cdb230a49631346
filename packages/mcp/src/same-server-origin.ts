import { type IncomingMessage, type ServerResponse } from 'node:http';
import { originValidation } from '@modelcontextprotocol/node';
import { localhostAllowedOrigins } from '@modelcontextprotocol/server';
import { rpcError } from './json-rpc-http.ts';

/**
 * The default `Origin` check: a loopback hostname (the SDK's `originValidation`) on the
 * server's own port. A page served from another local port (a dev server, a notebook, a
 * downloaded HTML file opened through one) has a loopback hostname too; the server answers no
 * CORS, so no such page could use it, and refusing it here means a browser's CORS preflight is
 * not the only wall between that page and a tool. Requests without `Origin` pass.
 */
export function sameServerOrigin(
  port: () => number,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const byName = originValidation(localhostAllowedOrigins());
  return (request, response) => {
    if (!byName(request, response)) return false;
    const origin = request.headers.origin;
    if (origin === undefined || origin === '') return true;
    // byName parsed it already: a value it let through is a URL.
    const url = new URL(origin);
    const given =
      url.port === ''
        ? url.protocol === 'https:'
          ? 443
          : 80
        : Number(url.port);
    if (given === port()) return true;
    rpcError(response, 403, {
      code: -32000,
      message: `Invalid Origin: ${url.host} is a page on another port; list its hostname in allowedOrigins to allow it`,
    });
    return false;
  };
}
