import { type IncomingMessage, type ServerResponse } from 'node:http';
import { validateHostHeader } from '@modelcontextprotocol/server';
import { rpcError } from './json-rpc-http.ts';

/**
 * The `Host` check for an absolute-form request-target (`POST http://name/mcp`): its authority,
 * not the `Host` header, names the server (RFC 9112, section 3.2.2), so that authority must be
 * an allowed host; an allowed one is rewritten to origin-form for the handlers after it, which
 * read only paths. Origin-form targets (`/mcp`) pass untouched.
 */
export function requestTargetCheck(
  allowedHosts: string[],
): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const target = request.url ?? '/';
    if (target.startsWith('/') || target === '*') return true;
    let url: URL | undefined;
    try {
      url = new URL(target);
    } catch {
      url = undefined;
    }
    // `http://localhost@evil.example/` names evil.example: the userinfo is not the host.
    const plain = url?.username === '' && url.password === '' ? url : undefined;
    if (
      plain !== undefined &&
      validateHostHeader(plain.host, allowedHosts).ok
    ) {
      request.url = `${plain.pathname}${plain.search}`;
      return true;
    }
    rpcError(response, 403, {
      code: -32000,
      message: `Invalid request-target: ${url?.host ?? target}`,
    });
    return false;
  };
}
