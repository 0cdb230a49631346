import { describe, expect, it } from 'vitest';
import { adapterTools } from './adapter-tools.ts';
import {
  type ToolExecutor,
  type ToolExecutorCallOptions,
} from './tool-executor.ts';
import { ToolResponse } from './tool-response.ts';

function executor(
  calls: [string, unknown, ToolExecutorCallOptions | undefined][],
) {
  const spec = (name: string) => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
  });
  return {
    specs: () => [spec('a'), spec('b')],
    call: (name, args, options) => {
      calls.push([name, args, options]);
      return Promise.resolve(ToolResponse.success(name));
    },
  } satisfies ToolExecutor;
}

describe('adapterTools', () => {
  it('binds every tool, or only the named ones, and names the caller for an unknown name', () => {
    const tools = executor([]);
    const names = (only?: string[]) =>
      adapterTools(tools, { caller: 'toX', ...(only ? { only } : {}) }).map(
        ({ spec }) => spec.name,
      );
    expect(names()).toEqual(['a', 'b']);
    expect(names(['b'])).toEqual(['b']);
    expect(() => names(['b', 'nope', 'zz'])).toThrow(
      'toX: no registered tool named "nope", "zz"',
    );
  });

  it('calls through the executor, leaving out an id or a signal it was not given', async () => {
    const calls: [string, unknown, ToolExecutorCallOptions | undefined][] = [];
    const [a] = adapterTools(executor(calls), { caller: 'toX' });
    const signal = new AbortController().signal;
    await a?.call({ x: 1 }, { callId: 'c1', signal });
    await a?.call({}, { callId: undefined, signal: undefined });
    expect(calls).toEqual([
      ['a', { x: 1 }, { callId: 'c1', signal }],
      ['a', {}, {}],
    ]);
  });

  describe('reads the id and the signal defensively: call never throws or rejects', () => {
    /** A Proxy whose every trap throws, whatever the trap. */
    const hostileProxy = new Proxy(
      {},
      new Proxy(
        {},
        {
          get: () => () => {
            throw new Error('hostile trap');
          },
        },
      ),
    );
    const throwingGetters = {
      get callId(): never {
        throw new Error('hostile callId');
      },
      get signal(): never {
        throw new Error('hostile signal');
      },
    };
    const signal = new AbortController().signal;

    it.each([
      ['no context', undefined],
      ['null', null],
      ['a string', 'c1'],
      ['throwing getters', throwingGetters],
      ['a Proxy that throws on every trap', hostileProxy],
      [
        'a number id and a signal that is not an AbortSignal',
        {
          callId: 7,
          signal: { aborted: false, reason: undefined },
        },
      ],
      [
        'an empty id and Proxies as the values',
        {
          callId: '',
          signal: hostileProxy,
        },
      ],
      [
        'a Proxy id and a Proxy signal',
        { callId: hostileProxy, signal: hostileProxy },
      ],
    ])('with %s, calls without an id or a signal', async (_, context) => {
      const calls: [string, unknown, ToolExecutorCallOptions | undefined][] =
        [];
      const [a] = adapterTools(executor(calls), { caller: 'toX' });
      if (a === undefined) throw new Error('no tool');
      await expect(a.call({}, context)).resolves.toMatchObject({
        status: 'success',
      });
      expect(calls).toEqual([['a', {}, {}]]);
      expect(Object.keys(calls[0]?.[2] ?? { none: true })).toEqual([]);
    });

    it('keeps the one value that reads well when the other throws', async () => {
      const calls: [string, unknown, ToolExecutorCallOptions | undefined][] =
        [];
      const [a] = adapterTools(executor(calls), { caller: 'toX' });
      await a?.call(
        {},
        {
          get callId(): never {
            throw new Error('hostile callId');
          },
          signal,
        },
      );
      await a?.call({}, { callId: 'c2', signal: hostileProxy });
      expect(calls).toEqual([
        ['a', {}, { signal }],
        ['a', {}, { callId: 'c2' }],
      ]);
    });

    it("reads the framework's own names through the adapter's readers, which may throw", async () => {
      const calls: [string, unknown, ToolExecutorCallOptions | undefined][] =
        [];
      const [a] = adapterTools(executor(calls), {
        caller: 'toX',
        callIdOf: (options) => (options as { toolCallId?: unknown }).toolCallId,
        signalOf: (options) =>
          (options as { abortSignal?: unknown }).abortSignal,
      });
      if (a === undefined) throw new Error('no tool');
      await a.call({}, { toolCallId: 'c3', abortSignal: signal, callId: 'no' });
      await expect(a.call({}, null)).resolves.toHaveProperty('status');
      await expect(a.call({}, hostileProxy)).resolves.toHaveProperty('status');
      expect(calls).toEqual([
        ['a', {}, { callId: 'c3', signal }],
        ['a', {}, {}],
        ['a', {}, {}],
      ]);
    });
  });

  it('asks the approval question with the tool name, and passes a fixed answer as it is', async () => {
    const asked: unknown[] = [];
    const [a, b] = adapterTools(executor([]), {
      caller: 'toX',
      needsApproval: (name, input) => {
        asked.push([name, input]);
        return Promise.resolve(name === 'b');
      },
    });
    const question = b?.needsApproval;
    expect(typeof question).toBe('function');
    if (typeof question !== 'function' || a?.needsApproval === undefined)
      throw new Error('no approval question');
    expect(await question({ y: 2 })).toBe(true);
    expect(asked).toEqual([['b', { y: 2 }]]);
    const fixed = adapterTools(executor([]), {
      caller: 'toX',
      needsApproval: false,
    });
    expect(fixed.map((tool) => tool.needsApproval)).toEqual([false, false]);
    expect(adapterTools(executor([]), { caller: 'toX' })[0]).not.toHaveProperty(
      'needsApproval',
    );
  });
});
