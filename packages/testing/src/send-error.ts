import type { ServerResponse } from 'node:http';
import type { AttemptRecord } from './attempt-record.ts';
import type {
  ParsedRequest,
  ProviderError,
  ProviderProtocol,
} from './provider-protocol.ts';

/** Everything needed to answer one matched request. */
export interface Answer {
  readonly record: AttemptRecord;
  readonly res: ServerResponse;
  readonly protocol: ProviderProtocol;
  readonly request: ParsedRequest;
}

/** Writes a provider-shaped error body with its status, headers and request id. */
export function sendError(
  answer: Answer,
  failure: {
    readonly error: ProviderError;
    readonly headers?: Readonly<Record<string, string>>;
  },
): void {
  const { record, res, protocol } = answer;
  const requestId = `req_${record.number}`;
  const body = JSON.stringify(protocol.errorBody(failure.error, requestId));
  res.writeHead(failure.error.status, {
    ...failure.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    [protocol.requestIdHeader]: requestId,
  });
  record.status = failure.error.status;
  res.end(body, () => {
    record.recordWrite(Buffer.byteLength(body), [body]);
  });
}
