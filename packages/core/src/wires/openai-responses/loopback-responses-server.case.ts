import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One scripted answer: an SSE capture from __fixtures__, or an HTTP status with a JSON body. */
export type Answer =
  | { readonly fixture: string }
  | {
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** What one request carried. */
export interface Recorded {
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown> & {
    readonly input: Record<string, unknown>[];
  };
}

/** An SSE capture from __fixtures__, as the server sends it. */
export function capture(name: string): string {
  return readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8');
}

let server: Server | undefined;

afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/**
 * A loopback server on 127.0.0.1 that answers `POST /v1/responses` requests in order and
 * records what they carried; a request past the script gets a 500.
 */
export async function serve(
  answers: Answer[],
): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(
          Buffer.concat(chunks).toString('utf8'),
        ) as Recorded['body'],
      });
      const answer = answers.shift();
      if (answer === undefined || 'status' in answer) {
        res.writeHead(answer?.status ?? 500, {
          'content-type': 'application/json',
          ...answer?.headers,
        });
        res.end(
          JSON.stringify(
            answer?.body ?? { error: { message: 'no answer scripted' } },
          ),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(capture(answer.fixture));
    });
  });
  const running = server;
  await new Promise<void>((resolve) => running.listen(0, '127.0.0.1', resolve));
  const { port } = running.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}/v1`, requests };
}

/** Reads a model stream to its end; the events, in order. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
