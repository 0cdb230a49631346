import { createClient } from '@redis/client';

/** One line MONITOR printed: who sent it (`lua` for a command a script ran) and its words. */
export interface MonitorLine {
  /** The server's time of the command, in ms. */
  readonly at: number;
  /** The client's `host:port`, or `lua`. */
  readonly from: string;
  readonly args: readonly string[];
}

const escapes: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  a: '\x07',
  b: '\b',
};

/** Undoes the escaping of MONITOR's quoted words (`\"`, `\\`, `\n`, `\xHH`, …). */
function unescape(word: string): string {
  return word.replace(/\\(x[0-9a-f]{2}|.)/g, (_, code: string) =>
    code.length === 3
      ? String.fromCharCode(parseInt(code.slice(1), 16))
      : (escapes[code] ?? code),
  );
}

/** Parses `1796169822.303420 [0 127.0.0.1:43000] "EVALSHA" "…"`, as MONITOR prints it. */
export function parseMonitorLine(line: string): MonitorLine {
  const head = /^(\d+)\.(\d+) \[\d+ ([^\]]+)\]/.exec(line);
  if (head === null) throw new Error(`not a MONITOR line: ${line}`);
  const args = [
    ...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g),
  ].map((match) => unescape(match[1] ?? ''));
  return {
    at: Number(head[1]) * 1000 + Number(head[2]) / 1000,
    from: head[3] === 'lua' ? 'lua' : (head[3] ?? ''),
    args,
  };
}

/**
 * A MONITOR connection to a real Redis: every command the server runs, in the order it runs them,
 * with a waiter for the `count`-th line from now that matches. MONITOR does not show itself.
 */
export async function watchRedis(url: string): Promise<{
  readonly lines: MonitorLine[];
  readonly nth: (
    count: number,
    matches: (line: MonitorLine) => boolean,
  ) => Promise<number>;
  readonly close: () => void;
}> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  const lines: MonitorLine[] = [];
  const waiters: {
    left: number;
    readonly matches: (line: MonitorLine) => boolean;
    readonly resolve: (index: number) => void;
  }[] = [];
  await client.monitor((reply) => {
    const line = parseMonitorLine(reply);
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (!waiter.matches(line)) continue;
      waiter.left -= 1;
      if (waiter.left > 0) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(lines.length - 1);
    }
  });
  return {
    lines,
    // Resolves with the index in `lines` of the count-th matching line after this call.
    nth: (count, matches) =>
      new Promise<number>((resolve) => {
        waiters.push({ left: count, matches, resolve });
      }),
    close: () => {
      client.destroy();
    },
  };
}
