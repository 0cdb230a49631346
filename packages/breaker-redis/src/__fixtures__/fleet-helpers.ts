import { type Logger } from '@candor/tools';
import { createClient } from '@redis/client';
import {
  type FleetAdmission,
  type FleetCircuit,
  type FleetRules,
  type FleetView,
} from '../fleet-circuit.ts';
import { findRedisServer } from '../redis-server.ts';

/** Whether this machine can run the Redis tests; they skip with a message where it cannot. */
export const redisInstalled = findRedisServer() !== undefined;
if (!redisInstalled) {
  process.stderr.write(
    'redis-server is not installed: the @candor/breaker-redis tests that need it are skipped (apt-get install redis-server)\n',
  );
}

/** The local breaker's defaults, as fleet rules. */
export const defaultRules: FleetRules = {
  resetTimeoutMs: 60_000,
  windowMs: 60_000,
  buckets: 6,
  minimumCalls: 5,
  failureRatePct: 50,
  leaseMs: 31_000,
};

/** Resolves when `circuit`'s view becomes `to` (at once if it already is). */
export async function viewBecomes(
  circuit: FleetCircuit,
  to: FleetView,
): Promise<void> {
  if (circuit.view === to) return;
  await new Promise<void>((resolve) => {
    const off = circuit.onChange((change) => {
      if (change.to !== to) return;
      off();
      resolve();
    });
  });
}

/** A pino-compatible logger that keeps its lines and tells a waiter about each. */
export function recordingLogger(): {
  logger: Logger;
  lines: { level: string; msg: string }[];
  next: (level: string, pattern: RegExp) => Promise<void>;
} {
  const lines: { level: string; msg: string }[] = [];
  const waiters: { level: string; pattern: RegExp; resolve: () => void }[] = [];
  const write =
    (level: string) =>
    (first: unknown, second?: unknown): void => {
      const msg =
        typeof first === 'string'
          ? first
          : typeof second === 'string'
            ? second
            : '';
      lines.push({ level, msg });
      for (const waiter of [...waiters]) {
        if (waiter.level === level && waiter.pattern.test(msg)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    };
  const logger = {
    trace: write('trace'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    fatal: write('fatal'),
    child: () => logger,
  } as unknown as Logger;
  return {
    logger,
    lines,
    next: (level, pattern) =>
      new Promise<void>((resolve) => {
        waiters.push({ level, pattern, resolve });
      }),
  };
}

/** A plain Redis client for a test to look at or tamper with the server; errors are ignored. */
export async function rawRedisClient(url: string) {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Redis's clock in ms: the one clock every fleet script reads. */
export async function redisNow(
  client: Awaited<ReturnType<typeof rawRedisClient>>,
): Promise<number> {
  const [seconds, micros] = (await client.sendCommand(['TIME'])) as unknown as [
    string,
    string,
  ];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * Resolves once Redis's clock has passed `at`. A local view may call a trial due a millisecond
 * before the server does; the server then refuses the lease, and nothing in a test asks again.
 */
export async function redisClockPassed(url: string, at: number): Promise<void> {
  const client = await rawRedisClient(url);
  try {
    while ((await redisNow(client)) < at) {
      // Each round trip is a real wait on the server; no timer involved.
    }
  } finally {
    client.destroy();
  }
}

/**
 * Admits calls on `circuit` until one is not refused as open, and returns it: the first call the
 * circuit's own view (its estimate of Redis's clock) finds due. A refusal while open also claims
 * the trial for this process, so the returned admission is normally the trial. One round trip to
 * Redis between tries: no timer, and no guess about how far apart the two clocks are.
 */
export async function admitOnceDue(
  circuit: FleetCircuit,
  url: string,
): Promise<FleetAdmission> {
  const client = await rawRedisClient(url);
  try {
    for (;;) {
      const admission = circuit.admit();
      if (admission.kind !== 'refuse' || admission.state !== 'open') {
        return admission;
      }
      await client.ping();
    }
  } finally {
    client.destroy();
  }
}

/** Like {@link admitOnceDue}, until a call is admitted at all (the trial after a lease ran out). */
export async function admitOnceFree(
  circuit: FleetCircuit,
  url: string,
): Promise<FleetAdmission> {
  const client = await rawRedisClient(url);
  try {
    for (;;) {
      const admission = circuit.admit();
      if (admission.kind !== 'refuse') return admission;
      await client.ping();
    }
  } finally {
    client.destroy();
  }
}
