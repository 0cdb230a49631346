import type { IncomingMessage } from 'node:http';
import {
  isProviderError,
  type ParsedRequest,
  type ProviderError,
  type ProviderProtocol,
} from './provider-protocol.ts';
import type { SentState } from './sent-state.ts';

/** Why a request was turned away, and the provider-shaped error it gets. */
export interface Rejection {
  readonly reason: string;
  readonly error: ProviderError;
}

/** The provider's own checks, in its order: path, auth, body, shape, tool history. */
export function acceptRequest(input: {
  readonly apiKey: string | undefined;
  readonly strict: boolean;
  readonly sent: SentState;
  readonly req: IncomingMessage;
  readonly raw: Buffer | 'too-large';
  readonly known: boolean;
  readonly protocol: ProviderProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly parsed: { readonly ok: boolean; readonly value: unknown };
}): { readonly request: ParsedRequest } | { readonly rejection: Rejection } {
  const reject = (reason: string, error: ProviderError) => ({
    rejection: { reason, error },
  });
  const { protocol } = input;
  if (!input.known || input.req.method !== 'POST') {
    return reject('unknown-path', {
      status: 404,
      code: protocol.codeFor(404),
      message: `Invalid URL (${input.req.method ?? 'GET'} ${input.req.url ?? '/'})`,
    });
  }
  const auth = protocol.checkAuth(input.headers, input.apiKey);
  if (auth !== undefined) {
    return reject('auth', auth);
  }
  if (input.raw === 'too-large') {
    return reject('too-large', {
      status: 413,
      code: protocol.codeFor(413),
      message: 'Request exceeds the maximum allowed number of bytes.',
    });
  }
  if (!input.parsed.ok) {
    return reject('malformed-json', protocol.malformedBodyError());
  }
  const shaped = protocol.parse(
    input.parsed.value,
    (input.req.url ?? '/').split('?')[0] ?? '/',
    input.sent,
  );
  if (isProviderError(shaped)) {
    return reject('invalid-request', shaped);
  }
  const history = input.strict
    ? protocol.checkToolHistory(
        input.parsed.value,
        input.sent,
        (input.req.url ?? '/').split('?')[0] ?? '/',
      )
    : undefined;
  if (history !== undefined) {
    return reject('strict-tool-history', history);
  }
  return { request: shaped };
}
