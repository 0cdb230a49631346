import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';

/** Splits RESP command arrays (`*N` of `$len` bulk strings) off the front of `buffer`. */
function takeCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const parsed = parseCommand(buffer, at);
    if (parsed === undefined) break;
    commands.push(parsed.args);
    at = parsed.end;
  }
  return { commands, rest: buffer.subarray(at) };
}

function parseCommand(
  buffer: Buffer,
  start: number,
): { args: string[]; end: number } | undefined {
  const line = (from: number): { text: string; next: number } | undefined => {
    const end = buffer.indexOf('\r\n', from);
    return end < 0
      ? undefined
      : { text: buffer.toString('latin1', from, end), next: end + 2 };
  };
  const head = line(start);
  if (head?.text.startsWith('*') !== true) return undefined;
  const args: string[] = [];
  let at = head.next;
  for (let i = 0; i < Number(head.text.slice(1)); i++) {
    const size = line(at);
    if (size === undefined) return undefined;
    const length = Number(size.text.slice(1));
    if (buffer.length < size.next + length + 2) return undefined;
    args.push(buffer.toString('utf8', size.next, size.next + length));
    at = size.next + length + 2;
  }
  return { args, end: at };
}

function bulk(text: string): string {
  return `$${String(Buffer.byteLength(text))}\r\n${text}\r\n`;
}

/**
 * A server that speaks the Redis protocol and lies: SUBSCRIBE is confirmed as Redis would, every
 * other command is answered `+OK`, whatever it asked for (a proxy or a foreign server on the port).
 */
export async function startLyingServer(): Promise<{
  url: string;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { commands, rest } = takeCommands(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const [name = '', ...args] of commands) {
        if (name.toUpperCase() === 'SUBSCRIBE') {
          args.forEach((channel, i) => {
            socket.write(
              `*3\r\n${bulk('subscribe')}${bulk(channel)}:${String(i + 1)}\r\n`,
            );
          });
        } else {
          socket.write('+OK\r\n');
        }
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('the lying server has no port');
  }
  return {
    url: `redis://127.0.0.1:${String(address.port)}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
