/**
 * One worker of `pnpm demo:fleet`: a ToolRegistry whose breakers share their circuit through
 * Redis. The parent drives it over IPC (`start`, `call`, `exit`); it reports every call's
 * outcome and every breaker transition, with its origin (this process or the fleet).
 */
import { createRedisBreakerStore } from '@candor/breaker-redis';
import { ToolRegistry } from '@candor/registry';
import { type Logger, ToolResponse } from '@candor/tools';

interface Start {
  type: 'start';
  name: string;
  redisUrl: string;
  upstreamUrl: string;
  resetTimeoutMs: number;
}
type Message = Start | { type: 'call' } | { type: 'exit' };

function send(message: object): void {
  process.send?.(message);
}

/**
 * A pino-compatible logger that forwards the breakers' transition lines (they carry `from`, `to`
 * and, with a store, `origin`) to the parent, and drops the rest.
 */
function transitionsLogger(): Logger {
  const forward = (fields: unknown): void => {
    if (typeof fields !== 'object' || fields === null) return;
    const { from, to, origin } = fields as Record<string, unknown>;
    if (typeof from === 'string' && typeof to === 'string') {
      send({ type: 'state', from, to, origin });
    }
  };
  const ignore = (): void => undefined;
  const logger = {
    trace: ignore,
    debug: ignore,
    info: forward,
    warn: forward,
    error: ignore,
    child: () => logger,
  };
  return logger;
}

let call: (() => Promise<void>) | undefined;
let stop: (() => Promise<void>) | undefined;

async function start(options: Start): Promise<void> {
  const store = createRedisBreakerStore({
    url: options.redisUrl,
    keyPrefix: 'candor-demo:',
  });
  await store.connect();
  const registry = new ToolRegistry({
    logger: transitionsLogger(),
    breaker: { store, resetTimeoutMs: options.resetTimeoutMs },
    telemetry: false,
  });
  let ran = false;
  registry.register(
    async function weather_api() {
      ran = true;
      const answer = await fetch(options.upstreamUrl);
      await answer.arrayBuffer();
      return answer.ok
        ? ToolResponse.success('sunny')
        : ToolResponse.error('API_ERROR', `upstream answered ${answer.status}`);
    },
    { description: 'A remote API shared by every worker' },
  );
  call = async () => {
    ran = false;
    const response = await registry.call('weather_api', {});
    send({
      type: 'result',
      code: response.status === 'error' ? response.errorInfo.code : 'OK',
      ran,
    });
  };
  stop = async () => {
    registry.shutdown();
    await store.close();
  };
  send({ type: 'ready' });
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
