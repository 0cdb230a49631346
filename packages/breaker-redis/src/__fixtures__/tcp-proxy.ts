import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/** One client connection through a {@link startTcpProxy} proxy. */
export interface ProxiedConnection {
  /** Whether the client has sent `text` (any case) on this connection (the first 64 KiB kept). */
  hasSent(text: string): boolean;
  /** Stops forwarding both ways, keeping both sockets open: a connection a network dropped. */
  blackHole(): void;
}

/** A loopback TCP proxy to one port, for faults a real server cannot make on its own. */
export interface TcpProxy {
  readonly port: number;
  readonly url: string;
  /** Every connection made so far, oldest first. */
  readonly connections: readonly ProxiedConnection[];
  /** Resolves with the first chunk a client sends that contains `text`, once it is forwarded. */
  sent(text: string): Promise<void>;
  /**
   * Opens a connection of its own and resolves once the proxy has read from it: every
   * connection started before it has been accepted (and counted) by then.
   */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free 127.0.0.1 port that forwards every connection to `targetPort`, and
 * can black-hole connections or report what clients send.
 */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const connections: ProxiedConnection[] = [];
  const watchers: { text: string; resolve: () => void }[] = [];
  const server = createServer((down) => {
    const up = connect(targetPort, '127.0.0.1');
    let open = true;
    let received = '';
    for (const socket of [down, up]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        down.destroy();
        up.destroy();
      });
    }
    down.on('data', (chunk: Buffer) => {
      if (!open) return;
      up.write(chunk);
      const text = chunk.toString('latin1');
      if (received.length < 65_536) received += text.toLowerCase();
      for (const watcher of [...watchers]) {
        if (!text.includes(watcher.text)) continue;
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve();
      }
    });
    up.on('data', (chunk: Buffer) => {
      if (open) down.write(chunk);
    });
    connections.push({
      hasSent: (text) => received.includes(text.toLowerCase()),
      blackHole: () => {
        open = false;
      },
    });
  });
  const watch = (text: string): Promise<void> =>
    new Promise<void>((resolve) => {
      watchers.push({ text, resolve });
    });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('the proxy has no port');
  }
  return {
    port: address.port,
    url: `redis://127.0.0.1:${address.port}`,
    connections,
    sent: watch,
    drain: async () => {
      const marker = `candor-proxy-drain-${String(connections.length)}`;
      const arrived = watch(marker);
      const probe = connect(address.port, '127.0.0.1', () => {
        probe.write(`${marker}\r\n`);
      });
      probe.on('error', () => undefined);
      await arrived;
      probe.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
