// `status` lists tools with SCAN; a server that never ends the scan must not keep it running.
import { describe, expect, it } from 'vitest';
import { FleetKeys } from './fleet-keys.ts';
import { scanTools } from './fleet-status.ts';
import { type RedisLink } from './redis-link.ts';

/** A link whose every SCAN (a script) gets the answer `next` makes from the cursor it was sent. */
function scanning(next: (cursor: string) => unknown): {
  link: RedisLink;
  rounds: () => number;
} {
  let rounds = 0;
  const link = {
    eval: (_script: unknown, _keys: unknown, args: readonly string[]) => {
      rounds += 1;
      // The script answers the server's time first, then SCAN's own reply.
      return Promise.resolve([0, ...(next(args[0] ?? '') as unknown[])]);
    },
  } as unknown as RedisLink;
  return { link, rounds: () => rounds };
}

const windowKey = (tool: string) => `p:window:${tool}`;
const keys = new FleetKeys('p:');

describe('scanTools against a server that lies about SCAN', () => {
  it('lists the tools of a scan that ends', async () => {
    const { link } = scanning((cursor) =>
      cursor === '0' ? ['17', ['p:window:a']] : ['0', ['p:window:b']],
    );
    await expect(scanTools(link, keys, windowKey)).resolves.toEqual(['a', 'b']);
  });

  it('stops when a cursor comes back a second time', async () => {
    const { link, rounds } = scanning(() => ['7', []]);
    await expect(scanTools(link, keys, windowKey)).rejects.toThrow(
      "Redis's SCAN handed out cursor 7 twice",
    );
    expect(rounds()).toBe(2);
  });

  it('stops after 100,000 rounds of ever-new cursors', async () => {
    const { link, rounds } = scanning((cursor) => [
      String(Number(cursor) + 1),
      [],
    ]);
    await expect(scanTools(link, keys, windowKey)).rejects.toThrow(
      "Redis's SCAN did not finish in 100000 rounds",
    );
    expect(rounds()).toBe(100_000);
  });
});
