/**
 * One worker process of a fleet: of the multi-process test, and of `pnpm demo:fleet` (the one copy
 * both fork). It waits for `{ type: 'start' }`, then connects a Redis store and a breaker for one
 * tool (`upstream` unless told; it calls a real HTTP server in the parent) and answers the parent
 * over IPC:
 * - `{ type: 'call' }` → `{ type: 'result', code, ran, stateBefore, at }`;
 * - every breaker transition → `{ type: 'state', from, to, origin, at }`, and to open also
 *   `openedAt` (the breaker's `snapshot().openedAt`: the fleet's, on Redis's clock);
 * - `{ type: 'exit' }` → closes everything and exits.
 */
import { createToolBreaker } from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { createRedisBreakerStore } from '../create-redis-breaker-store.ts';

interface Start {
  type: 'start';
  redisUrl: string;
  upstreamUrl: string;
  resetTimeoutMs: number;
  trialClaimMs?: number;
  /** The store's command timeout; tests on a loaded machine give more than the 100 ms default. */
  commandTimeoutMs?: number;
  keyPrefix?: string;
  tool?: string;
  /** The breaker's `permittedCallsInHalfOpen`, when not 1. */
  permittedCallsInHalfOpen?: number;
  name: string;
}
type Message = Start | { type: 'call' } | { type: 'exit' };

function send(message: object): void {
  process.send?.(message);
}

let call: (() => Promise<void>) | undefined;
let stop: (() => Promise<void>) | undefined;

async function start(options: Start): Promise<void> {
  const store = createRedisBreakerStore({
    url: options.redisUrl,
    keyPrefix: options.keyPrefix ?? 'fleet-test:',
    ...(options.trialClaimMs === undefined
      ? {}
      : { trialClaimMs: options.trialClaimMs }),
    ...(options.commandTimeoutMs === undefined
      ? {}
      : { commandTimeoutMs: options.commandTimeoutMs }),
  });
  if (!(await store.connect())) {
    // Closed, so that this worker can still exit when told to.
    await store.close();
    throw new Error('Redis is not reachable');
  }
  const breaker = createToolBreaker(options.tool ?? 'upstream', {
    store,
    telemetry: false,
    resetTimeoutMs: options.resetTimeoutMs,
    timeoutMs: 5_000,
    ...(options.permittedCallsInHalfOpen === undefined
      ? {}
      : { permittedCallsInHalfOpen: options.permittedCallsInHalfOpen }),
  });
  breaker.onStateChange((change) => {
    // An open circuit's opening time is the fleet's, on Redis's clock (the machine's, for a
    // local server): the parent measures from when the circuit opened, not from when it heard.
    const { openedAt } = breaker.snapshot();
    send({
      type: 'state',
      ...change,
      at: Date.now(),
      ...(change.to === 'open' && openedAt !== undefined ? { openedAt } : {}),
    });
  });
  call = async () => {
    const stateBefore = breaker.state;
    let ran = false;
    const response = await breaker.execute(async ({ signal }) => {
      ran = true;
      const answer = await fetch(options.upstreamUrl, {
        signal,
        headers: { 'x-worker': options.name },
      });
      await answer.arrayBuffer();
      return answer.ok
        ? ToolResponse.success('fine')
        : ToolResponse.error('API_ERROR', `upstream answered ${answer.status}`);
    });
    send({
      type: 'result',
      code: response.status === 'error' ? response.errorInfo.code : 'OK',
      ran,
      stateBefore,
      at: Date.now(),
    });
  };
  stop = async () => {
    breaker.shutdown();
    await store.close();
  };
  send({ type: 'ready', state: breaker.state });
}

process.on('message', (message: Message) => {
  const run = async (): Promise<void> => {
    switch (message.type) {
      case 'start':
        await start(message);
        return;
      case 'call':
        await call?.();
        return;
      case 'exit':
        await stop?.();
        process.disconnect();
        return;
    }
  };
  run().catch((error: unknown) => {
    send({ type: 'error', message: String(error) });
  });
});
send({ type: 'loaded' });
