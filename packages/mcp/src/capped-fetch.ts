/** A response body `cappedFetch` stopped reading: the server sent more than the cap allows. */
export class OversizedResponseError extends Error {
  override readonly name = 'OversizedResponseError';
}

/**
 * A `fetch` for the SDK's HTTP client transport that stops reading a response body past
 * `maxBytes`: a whole JSON body, or one event of an event stream (a stream lives for the
 * session, so only a single event is bounded). Without it a hostile or broken server that
 * never ends its answer fills the client's memory until the call's time limit, about a
 * gigabyte in fifteen seconds on loopback. Reading stops with an {@link OversizedResponseError}
 * and the connection is cancelled.
 */
export function cappedFetch(
  maxBytes: number,
  base: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null) return response;
    const events = (response.headers.get('content-type') ?? '').includes(
      'text/event-stream',
    );
    let size = 0;
    // The last two bytes seen, so that a blank line split across chunks still ends an event.
    let tail = Buffer.alloc(0);
    const cap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (events) {
          const seen = Buffer.concat([tail, chunk]);
          const end = Math.max(
            seen.lastIndexOf('\n\n'),
            seen.lastIndexOf('\n\r\n'),
          );
          size = end === -1 ? size + chunk.length : seen.length - end;
          tail = seen.subarray(-2);
        } else {
          size += chunk.length;
        }
        if (size > maxBytes) {
          controller.error(
            new OversizedResponseError(
              `the MCP server's ${events ? 'event' : 'response'} is larger than ${maxBytes} bytes (maxResponseBytes); reading stopped`,
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(cap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
