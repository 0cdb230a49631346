// Bare HTTP for the wall tests: requests with exactly the headers given (fetch will not send a
// foreign Host), and uploads that stop as soon as the server answers.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/** What a {@link rawPost} got back. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A raw HTTP/1.1 POST with exactly the headers given (fetch will not send a foreign Host). */
export function rawPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Sends `megabytes` of body over a bare socket, declared with a Content-Length or chunked,
 * and resolves with the status line's code as soon as the server answers: the server may
 * answer, and close, long before the upload would have ended.
 */
export function upload(
  url: URL,
  megabytes: number,
  options: { declared: boolean; headers?: Record<string, string> },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let answered = false;
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      answer += text;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status?.[1] !== undefined && !answered) {
        answered = true;
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    // Writes after the answer may meet a closed connection: that is the point.
    socket.on('error', (error) => {
      if (!answered) reject(error);
    });
    socket.on('close', () => {
      if (!answered) reject(new Error(`closed without an answer: ${answer}`));
    });
    const extra = Object.entries(options.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        'Content-Type: application/json\r\n' +
        'Accept: application/json, text/event-stream\r\n' +
        extra +
        (options.declared
          ? `Content-Length: ${megabytes * 1024 * 1024}\r\n\r\n`
          : 'Transfer-Encoding: chunked\r\n\r\n'),
    );
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const framed = options.declared
      ? chunk
      : Buffer.concat([
          Buffer.from(`${chunk.length.toString(16)}\r\n`),
          chunk,
          Buffer.from('\r\n'),
        ]);
    let sent = 0;
    const write = (): void => {
      while (!answered && !socket.destroyed && sent < megabytes) {
        sent += 1;
        if (!socket.write(framed)) {
          socket.once('drain', write);
          return;
        }
      }
      if (!answered && !options.declared) socket.write('0\r\n\r\n');
    };
    write();
  });
}
