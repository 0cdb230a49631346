import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

/** One scripted answer: SSE text (a capture from `__fixtures__`), or an HTTP error body. */
export type LoopbackAnswer =
  | { readonly sse: string }
  | {
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** One request as the loopback server received it. */
export interface LoopbackRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown>;
}

/** A capture from a wire's `__fixtures__` folder, next to the test that reads it. */
export function fixture(base: string | URL, name: string): string {
  return readFileSync(new URL(`__fixtures__/${name}`, base), 'utf8');
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) that answers requests in order with vendor-shaped
 * SSE or error bodies, and records what each request carried. A request past the script gets a
 * 500, so a test that sends one too many sees it fail.
 */
export async function serveAnswers(
  answers: readonly LoopbackAnswer[],
): Promise<{
  readonly url: string;
  readonly requests: readonly LoopbackRequest[];
  readonly close: () => Promise<void>;
}> {
  const queue = [...answers];
  const requests: LoopbackRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<
          string,
          unknown
        >,
      });
      const answer = queue.shift();
      if (answer === undefined || 'status' in answer) {
        res.writeHead(answer?.status ?? 500, {
          'content-type': 'application/json',
          ...answer?.headers,
        });
        res.end(JSON.stringify(answer?.body ?? { error: 'no answer' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(answer.sse);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
