import {
  everyTrapThrows,
  rejectingLogger,
  throwingGetters,
  throwingLogger,
} from '@candor/hostile-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicChat,
  anthropicHeaders,
  dataOf,
  openAiChat,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';
import { LlmTestServer, type RunningLlmTestServer } from './llm-test-server.ts';
import type { TestServerLogger } from './test-server-logger.ts';

let running: RunningLlmTestServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A broken logger, and how many times the server tried to reach it. */
interface Broken {
  readonly logger: TestServerLogger;
  readonly touches: () => number;
  /** For an async logger: rejected promises left without a handler. */
  readonly unhandled?: () => number;
}

function methodsThrow(): Broken {
  const { logger, attempts } = throwingLogger();
  return { logger, touches: attempts };
}

function gettersThrow(): Broken {
  const { logger, reads } = throwingGetters();
  return { logger, touches: reads };
}

function proxyThrows(): Broken {
  // Every trap of the handler throws, whichever the server (or a guard) reaches for.
  const { proxy, touches } = everyTrapThrows();
  return { logger: proxy as TestServerLogger, touches };
}

function rejects(): Broken {
  const { logger, attempts, unhandled } = rejectingLogger();
  return { logger, touches: attempts, unhandled };
}

const user = (content: string): unknown => ({ role: 'user', content });

describe.each([
  ['whose methods throw', methodsThrow],
  ['whose getters throw', gettersThrow],
  ['that is a Proxy whose traps throw', proxyThrows],
  ['whose methods return rejected promises', rejects],
])('a logger %s', (_, make) => {
  it('never costs a matched, unmatched or rejected request its answer', async () => {
    const { logger, touches, unhandled } = make();
    const server = new LlmTestServer({ logger });
    server.conversation('c', (c) => {
      c.step('greet').whenUser('hi').responds('Hello!');
      c.step('stream').whenUser('stream please').responds('streamed');
    });
    running = await server.start();
    const { url } = running;

    const matched = await post(
      `${url}/v1/chat/completions`,
      openAiChat([user('hi')]),
    );
    expect(matched.status).toBe(200);
    expect(await matched.json()).toMatchObject({
      choices: [{ message: { content: 'Hello!' } }],
    });

    const streamed = dataOf(
      await readEvents(
        await post(
          `${url}/v1/messages`,
          anthropicChat([user('stream please')], { stream: true }),
          { headers: anthropicHeaders },
        ),
      ),
    );
    expect(JSON.stringify(streamed)).toContain('streamed');

    // Unmatched: logged at debug and warn, answered with the provider's 400.
    const unmatched = await post(
      `${url}/v1/chat/completions`,
      openAiChat([user('nobody expects this')]),
    );
    expect(unmatched.status).toBe(400);
    await unmatched.body?.cancel();

    // Rejected by the provider's own checks: an unknown path.
    const rejected = await post(`${url}/v1/nowhere`, {});
    expect(rejected.status).toBe(404);
    await rejected.body?.cancel();

    await expect(server.waitForAttempt(4)).resolves.toMatchObject({
      disposition: 'rejected',
    });
    expect(server.journal.map((entry) => entry.disposition)).toEqual([
      'matched',
      'matched',
      'unmatched',
      'rejected',
    ]);
    expect(() => {
      server.assertNoUnmatched();
    }).toThrow('1 request(s) matched no scripted step');
    // The server did try to log: the logger was reached and its failure swallowed.
    expect(touches()).toBeGreaterThanOrEqual(4);
    // Two turns: Node reports an unhandled rejection after the microtask queue drains.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled?.() ?? 0).toBe(0);
  });
});
