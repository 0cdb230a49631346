import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

function registryWith(fn: (args: never) => unknown, name = 'legacy') {
  const registry = new ToolRegistry({ breaker: false });
  registry.register(fn, { name });
  return registry;
}

describe('auto-wrapping plain functions', () => {
  it('makes a returned "Error: fixture" a SUCCESS: text is never scanned', async () => {
    const response = await registryWith(() => 'Error: fixture').call(
      'legacy',
      {},
    );
    expect(response.status).toBe('success');
    expect(response.text).toBe('Error: fixture');
    expect('data' in response).toBe(false);
  });

  it('makes a throw an ERROR classified by its cause', async () => {
    const response = await registryWith(() => {
      throw Object.assign(
        new Error("ENOENT: no such file or directory, open 'a.txt'"),
        { code: 'ENOENT' },
      );
    }).call('legacy', {});
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'NOT_FOUND',
      retryable: false,
    });
    expect(response.text).toBe(
      "ENOENT: no such file or directory, open 'a.txt'",
    );
  });

  it('handles sync and async functions alike', async () => {
    expect((await registryWith(() => 'sync').call('legacy')).text).toBe('sync');
    expect((await registryWith(async () => 'async').call('legacy')).text).toBe(
      'async',
    );
    const rejected = await registryWith(async () =>
      Promise.reject(new Error('nope')),
    ).call('legacy');
    expect(rejected.status === 'error' && rejected.errorInfo.code).toBe(
      'EXECUTION_ERROR',
    );
  });

  it.each([
    ['an object', { rows: 2 }, '{"rows":2}', { rows: 2 }],
    ['an array', [1, 'a'], '[1,"a"]', [1, 'a']],
    ['a number', 42, '42', 42],
    ['zero', 0, '0', 0],
    ['a boolean', false, 'false', false],
    ['an empty string', '', '', undefined],
  ])(
    'makes %s a success with data and a JSON text',
    async (_label, value, text, data) => {
      const response = await registryWith(() => value).call('legacy');
      expect(response.status).toBe('success');
      expect(response.text).toBe(text);
      expect(response.data).toEqual(data);
    },
  );

  it('keeps null and undefined distinct, with a text the model can read', async () => {
    const fromNull = await registryWith(() => null).call('legacy');
    const fromUndefined = await registryWith(() => undefined).call('legacy');
    expect(fromNull).toMatchObject({
      status: 'success',
      text: 'The tool returned null.',
      data: null,
    });
    expect(fromUndefined).toMatchObject({
      status: 'success',
      text: 'The tool finished and returned no value.',
    });
    expect('data' in fromNull).toBe(true);
    expect('data' in fromUndefined).toBe(false);
  });

  it('keeps a returned ToolResponse', async () => {
    const response = await registryWith(() =>
      ToolResponse.error('NOT_FOUND', 'no such user'),
    ).call('legacy');
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'NOT_FOUND',
    );
    const partial = await registryWith(() =>
      ToolResponse.partial('some', { reason: 'truncated' }),
    ).call('legacy');
    expect(partial.status === 'partial' && partial.reason).toBe('truncated');
  });

  it('passes arguments and the run context to the function', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(
      (args: { id: string }, context) =>
        `${args.id} via ${context.toolName} (${context.callId})`,
      { name: 'lookup', input: z.object({ id: z.string() }) },
    );
    expect(
      (await registry.call('lookup', { id: 'u1' }, { callId: 'k' })).text,
    ).toBe('u1 via lookup (k)');
    const bad = await registry.call('lookup', { id: 5 });
    expect(bad.status === 'error' && bad.errorInfo.code).toBe('INVALID_PARAM');
  });

  it('names a function tool after the function, and rejects unusable names', () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(function get_weather() {
      return 'sunny';
    });
    expect(registry.list().map((tool) => tool.name)).toEqual(['get_weather']);
    expect(() => registry.register(() => 'x')).toThrow(
      /invalid tool name "".*give \{ name \}/,
    );
    expect(() => registry.register('not a function' as never)).toThrow(
      /expected a defineTool\(\) tool or a function/,
    );
  });
});

describe('registration', () => {
  const tool = defineTool({
    name: 'dup',
    description: 'A tool',
    input: z.object({}),
    run: () => ToolResponse.success('first'),
  });

  it('rejects a duplicate name unless told to replace', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(tool);
    expect(() => registry.register(tool)).toThrow(
      /"dup" is already registered; pass \{ replace: true \}/,
    );
    registry.register(() => 'second', { name: 'dup', replace: true });
    expect((await registry.call('dup')).text).toBe('second');
  });

  it('lists which tools are structured and which are legacy', () => {
    const registry = new ToolRegistry({ breaker: false, timeoutMs: 5000 });
    registry.register(tool);
    registry.register(() => 'x', {
      name: 'old_tool',
      description: 'An old tool',
    });
    expect(registry.list()).toEqual([
      {
        name: 'dup',
        description: 'A tool',
        kind: 'structured',
        idempotent: false,
        timeoutMs: 5000,
      },
      {
        name: 'old_tool',
        description: 'An old tool',
        kind: 'legacy',
        idempotent: false,
        timeoutMs: 5000,
      },
    ]);
  });

  it('gives provider-neutral specs by default, the same as json-schema', () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(tool);
    registry.register(
      defineTool({
        name: 'safe',
        description: 'Safe to repeat',
        input: z.object({}),
        idempotent: true,
        run: () => ToolResponse.success('x'),
      }),
    );
    const specs = registry.specs();
    expect(specs.map((spec) => [spec.name, spec.idempotent])).toEqual([
      ['dup', false],
      ['safe', true],
    ]);
    expect(specs[0]).toEqual({
      name: 'dup',
      description: 'A tool',
      inputSchema: expect.objectContaining({ type: 'object' }) as unknown,
      idempotent: false,
    });
    expect(registry.specs({ format: 'json-schema' })).toEqual(specs);
    expect(() =>
      registry.specs({ format: 'gemini' } as unknown as { format: 'openai' }),
    ).toThrow(/format must be 'json-schema'.*got "gemini"/);
  });

  it('still gives the deprecated OpenAI and Anthropic specs', () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(tool);
    registry.register(() => 'x', { name: 'old_tool' });
    const [openai] = registry.specs({ format: 'openai' });
    expect(openai).toEqual({
      type: 'function',
      function: {
        name: 'dup',
        description: 'A tool',
        parameters: expect.objectContaining({ type: 'object' }) as unknown,
      },
    });
    const anthropic = registry.specs({ format: 'anthropic' });
    expect(
      anthropic.map((spec) => [spec.name, spec.input_schema['type']]),
    ).toEqual([
      ['dup', 'object'],
      ['old_tool', 'object'],
    ]);
    expect(registry.specs({ format: 'json-schema' })[0]).toMatchObject({
      name: 'dup',
      inputSchema: { type: 'object' },
    });
  });

  it('rejects invalid options with a clear error', () => {
    expect(() => new ToolRegistry({ timeoutMs: 0 })).toThrow(
      /timeoutMs must be a positive finite number/,
    );
    expect(() => new ToolRegistry({ maxResultChars: -1 })).toThrow(
      /maxResultChars/,
    );
  });
});

describe('hostile tools and arguments: no call ever rejects', () => {
  const registry = new ToolRegistry({ breaker: false, maxResultChars: 1000 });
  registry.register(
    () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the hostile case under test
      throw {
        toString: () => {
          throw new Error('no');
        },
      };
    },
    { name: 'throws_object' },
  );
  registry.register(
    () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the hostile case under test
      throw Symbol('weird');
    },
    { name: 'throws_symbol' },
  );
  registry.register(() => 'x'.repeat(5_000_000), { name: 'huge' });
  registry.register(() => () => 1, { name: 'returns_function' });
  registry.register(
    () => {
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      return cyclic;
    },
    { name: 'returns_cycle' },
  );
  registry.register((args: unknown) => args, { name: 'mirror' });
  registry.register(
    defineTool({
      name: 'typed',
      description: 'Typed',
      input: z.object({ n: z.number() }),
      run: ({ n }) => ToolResponse.success(String(n)),
    }),
  );

  it('turns a thrown non-Error into a readable EXECUTION_ERROR', async () => {
    const object = await registry.call('throws_object');
    expect(object.status === 'error' && object.errorInfo.code).toBe(
      'EXECUTION_ERROR',
    );
    expect(object.text).toBe('A non-error object was thrown (no message)');
    const symbol = await registry.call('throws_symbol');
    expect(symbol.text).toBe('A symbol was thrown: Symbol(weird)');
  });

  it('cuts a huge string to head and tail and marks it PARTIAL', async () => {
    const response = await registry.call('huge');
    expect(response.status === 'partial' && response.reason).toBe(
      'result_truncated',
    );
    expect(response.text.length).toBeLessThan(1100);
    expect(response.text).toContain('[… 4999000 characters omitted …]');
  });

  it('reports unserialisable returns as INTERNAL_ERROR', async () => {
    const fn = await registry.call('returns_function');
    expect(fn.text).toBe(
      'Tool "returns_function" returned an invalid result: a function cannot be sent to a model',
    );
    const cycle = await registry.call('returns_cycle');
    expect(cycle.status === 'error' && cycle.errorInfo.code).toBe(
      'INTERNAL_ERROR',
    );
    expect(cycle.text).toMatch(/cannot be serialised to JSON/);
  });

  it('keeps __proto__ keys as data and never pollutes prototypes', async () => {
    const response = await registry.call(
      'mirror',
      '{"__proto__":{"polluted":true},"a":1}',
    );
    expect(response.status).toBe('success');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(response.context?.params)).toBe(
      Object.prototype,
    );
    expect(Object.keys(response.context?.params as object)).toEqual([
      '__proto__',
      'a',
    ]);
  });

  it('survives deeply nested arguments', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const response = await registry.call('mirror', deep);
    expect(['success', 'error', 'partial']).toContain(response.status);
    expect(JSON.stringify(response.context?.params)).toContain(
      '[Truncated: too deep]',
    );
  });

  it('answers wrong types with INVALID_PARAM', async () => {
    for (const args of [{ n: 'one' }, [1], 'null', '42', { n: null }]) {
      const response = await registry.call('typed', args);
      expect(response.status === 'error' && response.errorInfo.code).toBe(
        'INVALID_PARAM',
      );
    }
  });

  it('never rejects, whatever the name or arguments', async () => {
    const weird: unknown[] = [
      undefined,
      null,
      1,
      Symbol('s'),
      { toString: null },
    ];
    const results = await Promise.allSettled(
      weird.flatMap((value) => [
        registry.call(value as string, value),
        registry.call('mirror', value),
      ]),
    );
    expect(results.every((result) => result.status === 'fulfilled')).toBe(true);
  });
});
