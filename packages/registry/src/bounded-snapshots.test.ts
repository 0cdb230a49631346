import {
  SNAPSHOT_MAX_CHARS,
  SNAPSHOT_MAX_DEPTH,
  snapshotFields,
  snapshotJson,
  TOO_DEEP,
  TOO_LARGE,
  ToolError,
} from '@candor/errors';
import { defineTool, SecretRedactor, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { responseFields } from './normalise-response.ts';
import { ToolRegistry } from './tool-registry.ts';

/** `{ a: { a: … { a: leaf } } }`, `levels` objects deep, built without recursion. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

/** How many objects deep a value is, following `a`. */
function depthOf(value: unknown): number {
  let depth = 0;
  let at = value;
  while (typeof at === 'object' && at !== null) {
    depth += 1;
    at = (at as { a?: unknown }).a;
  }
  return depth;
}

// One string of a million characters, shared: 600 references make 600 million characters of
// JSON, past the longest string V8 builds, for the memory of one.
const million = 'x'.repeat(1_000_000);
const huge = Array.from({ length: 600 }, () => million);

function mirrorRegistry(): ToolRegistry {
  const registry = new ToolRegistry({ breaker: false });
  registry.register(
    defineTool({
      name: 'echo',
      description: 'Echoes its arguments as data',
      input: z.looseObject({}),
      run: (input) => ToolResponse.success('echoed', { data: input }),
    }),
  );
  return registry;
}

describe('bounded snapshots', () => {
  it('keeps 32 levels and marks the rest, as the redactor does', () => {
    const snapshot = snapshotJson(nested(40));
    expect(snapshot.ok).toBe(true);
    const value = snapshot.ok ? snapshot.value : undefined;
    // The 32 objects kept, then the marker where the 33rd was.
    expect(depthOf(value)).toBe(SNAPSHOT_MAX_DEPTH);
    expect(JSON.stringify(value)).toContain(JSON.stringify(TOO_DEEP));
    expect(new SecretRedactor().redact(nested(40))).toEqual(value);
    // 32 levels exactly are kept whole.
    expect(snapshotJson(nested(32))).toEqual({ ok: true, value: nested(32) });
  });

  it('keeps about 2^24 characters and puts one marker where it stopped', () => {
    const snapshot = snapshotJson(huge);
    expect(snapshot.ok).toBe(true);
    const value = snapshot.ok ? (snapshot.value as unknown[]) : [];
    const kept = Math.floor(SNAPSHOT_MAX_CHARS / (million.length + 1));
    expect(value).toHaveLength(kept + 1);
    expect(value.slice(0, kept).every((item) => item === million)).toBe(true);
    expect(value.at(-1)).toBe(TOO_LARGE);
    expect(value.filter((item) => item === TOO_LARGE)).toHaveLength(1);
  });

  it('counts keys too: an object of very long keys is cut with one marker', () => {
    const wide: Record<string, number> = {};
    for (let index = 0; index < 20; index++) {
      wide[`${String(index)}${million}`] = index;
    }
    const snapshot = snapshotJson({ outer: wide, after: 1 });
    const value = snapshot.ok
      ? (snapshot.value as { outer: Record<string, unknown>; after?: unknown })
      : undefined;
    const values = Object.values(value?.outer ?? {});
    expect(values.at(-1)).toBe(TOO_LARGE);
    expect(values.length).toBeLessThan(20);
    // Nothing after the marker, in the container or outside it.
    expect(value && 'after' in value).toBe(false);
    expect(JSON.stringify(value)).toBeTypeOf('string');
  });

  it('restores the budget of a snapshot taken inside another one', () => {
    let inner: unknown;
    const value = {
      first: million,
      toJSON() {
        inner = snapshotJson(huge);
        return { first: this.first, second: million };
      },
    };
    const outer = snapshotJson([value]);
    expect(outer).toEqual({
      ok: true,
      value: [{ first: million, second: million }],
    });
    expect((inner as { value: unknown[] }).value.at(-1)).toBe(TOO_LARGE);
  });

  it("leaves a response's text out of the budget, for maxResultChars to cut", () => {
    const text = 'y'.repeat(SNAPSHOT_MAX_CHARS + 10);
    const snapshot = snapshotFields(
      { status: 'success', text, stats: {} },
      responseFields,
    );
    expect(snapshot.ok && 'values' in snapshot && snapshot.values[1]).toBe(
      text,
    );
  });
});

describe('every response JSON.stringify serialises', () => {
  it('a 20,000-deep argument object, passed as an object', async () => {
    const response = await mirrorRegistry().call('echo', nested(20_000));
    expect(response.status).toBe('success');
    const text = JSON.stringify(response);
    expect(text).toContain(JSON.stringify(TOO_DEEP));
    expect(depthOf(response.context?.params)).toBe(SNAPSHOT_MAX_DEPTH);
  });

  it('a 20,000-deep argument object to a plain function', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(function mirror(args: unknown) {
      return args;
    });
    const response = await registry.call('mirror', nested(20_000));
    expect(() => JSON.stringify(response)).not.toThrow();
    expect(JSON.stringify(response.context?.params)).toContain(TOO_DEEP);
  });

  it('arguments of 600 million characters, as an object and as JSON text', async () => {
    const registry = mirrorRegistry();
    const asObject = await registry.call('echo', { huge });
    expect(JSON.stringify(asObject).length).toBeLessThan(
      3 * SNAPSHOT_MAX_CHARS,
    );
    expect(JSON.stringify(asObject.context?.params)).toContain(TOO_LARGE);

    const longText = JSON.stringify({ text: 'z'.repeat(SNAPSHOT_MAX_CHARS) });
    const asText = await registry.call('echo', longText);
    expect(asText.status).toBe('success');
    expect(asText.context?.params).toEqual({ text: TOO_LARGE });
    expect(JSON.stringify(asText)).toBeTypeOf('string');

    const notJson = await registry.call('echo', `{${longText}`);
    expect(notJson.status === 'error' && notJson.errorInfo.code).toBe(
      'INVALID_FORMAT',
    );
    expect(notJson.context?.params).toBe(TOO_LARGE);
  });

  it('data a tool returns too deep or too large', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(
      defineTool({
        name: 'deep',
        description: 'Returns deep data',
        input: z.object({}),
        run: () => ToolResponse.success('deep', { data: nested(20_000) }),
      }),
    );
    registry.register(function large() {
      return { huge };
    });
    const deep = await registry.call('deep', {});
    expect(deep.status).toBe('success');
    expect(JSON.stringify(deep)).toContain(JSON.stringify(TOO_DEEP));
    const large = await registry.call('large', {});
    // Its JSON text is then cut to maxResultChars, which makes it partial.
    expect(large.status).toBe('partial');
    expect(JSON.stringify(large)).toContain(TOO_LARGE);
  });

  it('the details of a thrown error that are a cycle, or too deep', async () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle['self'] = cycle;
    const registry = new ToolRegistry({ breaker: false });
    for (const [name, details] of [
      ['cyclic', cycle],
      ['deep', nested(20_000) as Record<string, unknown>],
    ] as const) {
      registry.register(
        defineTool({
          name,
          description: 'Throws with details',
          input: z.object({}),
          run: () => {
            throw new ToolError({
              code: 'API_ERROR',
              message: 'refused',
              details,
            });
          },
        }),
      );
    }
    const cyclic = await registry.call('cyclic', {});
    expect(cyclic.status === 'error' && cyclic.errorInfo.details).toEqual({
      unserialisable: expect.stringMatching(/circular/i) as unknown,
    });
    const deep = await registry.call('deep', {});
    expect(deep.status === 'error' && deep.errorInfo.code).toBe('API_ERROR');
    expect(JSON.stringify(deep)).toContain(JSON.stringify(TOO_DEEP));
    expect(() => JSON.stringify(cyclic)).not.toThrow();
  });
});
