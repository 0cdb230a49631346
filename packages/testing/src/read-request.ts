import type { IncomingMessage } from 'node:http';

/** Header values joined into one string each, names lower-cased as Node gives them. */
export function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return headers;
}

/** Reads the body up to `limit` bytes; larger bodies are drained and reported. */
export function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => {
      resolve(size > limit ? 'too-large' : Buffer.concat(chunks));
    });
    req.on('error', () => {
      resolve('aborted');
    });
    req.on('close', () => {
      if (!req.complete) {
        resolve('aborted');
      }
    });
  });
}

/** Parses a body as JSON, reporting failure instead of throwing. */
export function parseJson(raw: Buffer): {
  readonly ok: boolean;
  readonly value: unknown;
} {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false, value: undefined };
  }
}
