import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

const registries: ToolRegistry[] = [];

function registry(options: { breaker?: false } = {}): ToolRegistry {
  const made = new ToolRegistry(options);
  registries.push(made);
  return made;
}

afterEach(() => {
  for (const each of registries.splice(0)) each.shutdown();
});

function tool(name: string, run: () => unknown) {
  return defineTool({
    name,
    description: 'A hostile tool',
    input: z.looseObject({}),
    run: run as () => ToolResponse,
  });
}

/** Every response that leaves the seam is JSON and valid on the wire after a round trip. */
function expectWireSafe(response: ToolResponse): void {
  const json = JSON.stringify(response);
  const parsed = ToolResponse.safeParse(JSON.parse(json));
  expect(parsed.success).toBe(true);
}

function codeOf(response: ToolResponse): string | undefined {
  return response.status === 'error' ? response.errorInfo.code : undefined;
}

describe('hostile tools cannot break "never rejects"', () => {
  it('a text getter that throws on its second read: one read, a valid response, one tool:end', async () => {
    for (const breaker of [undefined, false] as const) {
      const reg = registry(breaker === false ? { breaker } : {});
      let reads = 0;
      reg.register(
        tool('sly', () => ({
          status: 'success',
          get text() {
            reads += 1;
            if (reads > 1) throw new Error('second read');
            return 'first';
          },
          stats: { timeMs: 0 },
        })),
      );
      let ends = 0;
      reg.on('tool:end', () => (ends += 1));
      const response = await reg.call('sly', {});
      expect(response.status).toBe('success');
      expect(response.text).toBe('first');
      expect(ends).toBe(1);
      expect(reads).toBe(1);
      expectWireSafe(response);
    }
  });

  it('a response that changes its status or code after validation is returned as validated', async () => {
    const reg = registry();
    let statusReads = 0;
    const shifty = {
      get status() {
        statusReads += 1;
        return statusReads === 1 ? 'error' : 'bogus';
      },
      text: 'failed',
      stats: { timeMs: 0 },
      errorInfo: {
        get code() {
          return statusReads <= 1 ? 'NOT_FOUND' : 'NOPE';
        },
        message: 'no such thing',
        retryable: false,
      },
    };
    reg.register(tool('shifty', () => shifty));
    const response = await reg.call('shifty', {});
    expect(codeOf(response)).toBe('NOT_FOUND');
    expect(ToolResponse.safeParse(response).success).toBe(true);
    expectWireSafe(response);
  });

  it('cyclic, BigInt and throwing-getter data from a structured tool is an INTERNAL_ERROR that says so', async () => {
    const reg = registry();
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const bad: Record<string, unknown> = {
      cyclic,
      bigint: 10n,
      getter: {
        get x() {
          throw new Error('no');
        },
      },
      toJSON: {
        toJSON() {
          throw new Error('no JSON');
        },
      },
    };
    for (const [key, data] of Object.entries(bad)) {
      reg.register(
        tool(`data_${key}`, () => ToolResponse.success('ok', { data })),
      );
      const response = await reg.call(`data_${key}`, {});
      expect(codeOf(response)).toBe('INTERNAL_ERROR');
      expect(response.text).toContain('cannot be serialised to JSON');
      expectWireSafe(response);
    }
  });

  it('a plain function returning a cycle, BigInt inside an object, or NaN is handled the same way', async () => {
    const reg = registry();
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    reg.register(() => cyclic, { name: 'cycle' });
    reg.register(() => ({ n: 1n }), { name: 'big' });
    reg.register(() => Number.NaN, { name: 'nan' });
    expect(codeOf(await reg.call('cycle', {}))).toBe('INTERNAL_ERROR');
    expect(codeOf(await reg.call('big', {}))).toBe('INTERNAL_ERROR');
    const nan = await reg.call('nan', {});
    expect(nan.text).toBe('NaN');
    expectWireSafe(nan);
  });

  it('an abort reason whose reads throw still settles the call, as cancelled and uncounted', async () => {
    for (const breaker of [undefined, false] as const) {
      const reg = registry(breaker === false ? { breaker } : {});
      reg.register(tool('wait', () => new Promise(() => undefined)));
      const controller = new AbortController();
      const pending = reg.call('wait', {}, { signal: controller.signal });
      controller.abort(
        new Proxy(
          {},
          {
            get() {
              throw new Error('unreadable reason');
            },
            getPrototypeOf() {
              throw new Error('unreadable prototype');
            },
          },
        ),
      );
      const response = await pending;
      expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
        true,
      );
      expect(reg.health().every((s) => s.window.failures === 0)).toBe(true);
    }
  });

  it('null, throwing and Proxy options never make call() reject', async () => {
    const reg = registry();
    reg.register(tool('ok', () => ToolResponse.success('ok')));
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no options');
        },
      },
    );
    for (const options of [null, 42, 'x', hostile]) {
      const response = await reg.call('ok', {}, options as never);
      expect(response.status).toBe('success');
    }
  });

  it('BigInt and throwing toJSON in arguments never reach context.params', async () => {
    const reg = registry();
    reg.register(tool('ok', () => ToolResponse.success('ok')));
    for (const args of [
      { n: 1n },
      {
        toJSON() {
          throw new Error('no');
        },
      },
    ]) {
      const response = await reg.call('ok', args);
      expect(typeof response.context?.params).toBe('string');
      expect(String(response.context?.params)).toContain('not JSON');
      expectWireSafe(response);
    }
  });
});
