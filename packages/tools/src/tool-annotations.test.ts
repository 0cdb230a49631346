import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { ToolResponse } from './tool-response.ts';

function define(extra: Record<string, unknown>): ReturnType<typeof defineTool> {
  return defineTool({
    name: 'look',
    description: 'Looks',
    input: z.object({}),
    run: () => ToolResponse.success('ok'),
    ...extra,
  });
}

describe('defineTool annotations', () => {
  it('snapshots the declared annotations once, frozen, with idempotentHint from idempotent', () => {
    const given = { title: 'Look', readOnlyHint: true };
    const tool = define({ idempotent: true, annotations: given });
    given.readOnlyHint = false;
    expect(tool.annotations).toEqual({
      title: 'Look',
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(Object.isFrozen(tool.annotations)).toBe(true);
    expect(define({}).annotations).toBeUndefined();
    expect('annotations' in define({})).toBe(false);
  });

  it('answers invalid annotations with a TypeError naming the field', () => {
    expect(() => define({ annotations: { readOnlyHint: 'yes' } })).toThrow(
      new TypeError(
        'tool "look": annotations.readOnlyHint must be a boolean, got string',
      ),
    );
    expect(() => define({ annotations: { title: 3 } })).toThrow(
      /annotations\.title must be a non-empty string/,
    );
    expect(() => define({ annotations: { readonlyHint: true } })).toThrow(
      /unknown annotation "readonlyHint"/,
    );
    expect(() => define({ annotations: 'read-only' })).toThrow(TypeError);
    expect(() => define({ annotations: null })).toThrow(TypeError);
  });

  it('keeps one source of truth for idempotency: a contrary idempotentHint is refused', () => {
    expect(() => define({ annotations: { idempotentHint: true } })).toThrow(
      /annotations\.idempotentHint \(true\) disagrees with idempotent \(false\)/,
    );
    expect(
      define({ idempotent: true, annotations: { idempotentHint: true } })
        .annotations,
    ).toEqual({ idempotentHint: true });
  });
});
