import { type IncomingMessage, type ServerResponse } from 'node:http';

/** A body that is not JSON. */
export const invalidBody = Symbol('invalid body');
/** A body over the size limit. */
export const oversizedBody = Symbol('oversized body');

/**
 * Reads a request body as JSON, keeping at most `maxBytes`: a declared or actual longer body
 * stops the reading at the limit, so a 100 MB upload costs no more memory than the limit.
 */
export function readJson(
  request: IncomingMessage,
  maxBytes: number,
): Promise<unknown> {
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) {
    return Promise.resolve(oversizedBody);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      // Stop keeping it; the caller answers 413 and drops the rest.
      request.off('data', onData).off('end', onEnd);
      chunks.length = 0;
      resolve(oversizedBody);
    };
    const onEnd = (): void => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
      } catch {
        resolve(invalidBody);
      }
    };
    request.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/** Answers with a JSON-RPC error object and an HTTP status. */
export function rpcError(
  response: ServerResponse,
  status: number,
  error: { code: number; message: string; headers?: Record<string, string> },
): void {
  response
    .writeHead(status, { 'content-type': 'application/json', ...error.headers })
    .end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: error.code, message: error.message },
      }),
    );
}
