import { createClient } from '@redis/client';

/** One line MONITOR printed, reduced to what the bench counts by. */
export interface MonitorLine {
  /** The server's time of the command, in ms. */
  readonly at: number;
  /** The sending client's `host:port`, or `lua` for a command a script ran. */
  readonly from: string;
  /** The command's name, upper-cased, and its first argument (unescaped only for plain words). */
  readonly command: string;
  readonly first: string | undefined;
}

/** Reads `1796169822.303420 [0 127.0.0.1:43000] "EVALSHA" "…"`, as MONITOR prints it. */
export function parseMonitorLine(line: string): MonitorLine {
  const match =
    /^(\d+)\.(\d+) \[\d+ ([^\]]+)\] "((?:[^"\\]|\\.)*)"(?: "((?:[^"\\]|\\.)*)")?/.exec(
      line,
    );
  if (match === null) throw new Error(`not a MONITOR line: ${line}`);
  return {
    at: Number(match[1]) * 1000 + Number(match[2]) / 1000,
    from: match[3] ?? '',
    command: (match[4] ?? '').toUpperCase(),
    first: match[5],
  };
}

/**
 * A MONITOR connection: every command the server runs, in the order it runs them. MONITOR never
 * shows its own connection. `mark(label)` sends `ECHO label` on a second connection and resolves
 * with that line's index once MONITOR has printed it, so everything the server ran before the
 * mark is in `lines` before that index.
 */
export async function watchRedis(url: string): Promise<{
  readonly lines: MonitorLine[];
  readonly mark: (label: string) => Promise<number>;
  readonly close: () => void;
}> {
  const monitor = createClient({ url });
  const marker = createClient({ url });
  for (const client of [monitor, marker]) client.on('error', () => undefined);
  await Promise.all([monitor.connect(), marker.connect()]);
  const lines: MonitorLine[] = [];
  const waiting = new Map<string, (index: number) => void>();
  await monitor.monitor((reply) => {
    const line = parseMonitorLine(reply);
    lines.push(line);
    if (line.command !== 'ECHO' || line.first === undefined) return;
    waiting.get(line.first)?.(lines.length - 1);
    waiting.delete(line.first);
  });
  return {
    lines,
    mark: async (label) => {
      const seen = new Promise<number>((resolve) => {
        waiting.set(label, resolve);
      });
      await marker.sendCommand(['ECHO', label]);
      return seen;
    },
    close: () => {
      monitor.destroy();
      marker.destroy();
    },
  };
}
