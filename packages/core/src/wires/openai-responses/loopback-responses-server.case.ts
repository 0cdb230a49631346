import { afterEach } from 'vitest';
import { fixture, serveAnswers } from '../loopback-server.case.ts';

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

let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

/**
 * The shared loopback server (`serveAnswers`) answering with this wire's captures; its URL ends
 * in `/v1`, as a Responses base URL does. Closed after each test.
 */
export async function serve(
  answers: Answer[],
): Promise<{ url: string; requests: readonly Recorded[] }> {
  const started = await serveAnswers(
    answers.map((answer) =>
      'fixture' in answer
        ? { sse: fixture(import.meta.url, answer.fixture) }
        : answer,
    ),
  );
  const previous = close;
  close = async () => {
    await previous?.();
    await started.close();
  };
  return {
    url: `${started.url}/v1`,
    requests: started.requests as readonly Recorded[],
  };
}

/** Reads a model stream to its end; the events, in order. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
