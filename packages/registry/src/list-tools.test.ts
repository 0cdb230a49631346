import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

describe('ToolRegistry.list annotations', () => {
  it("carries a tool's declared annotations, the same frozen snapshot each time, and none for a tool without", () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(
      defineTool({
        name: 'look',
        description: 'Looks',
        input: z.object({}),
        idempotent: true,
        annotations: { title: 'Look', readOnlyHint: true },
        run: () => ToolResponse.success('ok'),
      }),
    );
    registry.register(function legacy() {
      return 'ok';
    });
    const [look, legacy] = registry.list();
    expect(look?.annotations).toEqual({
      title: 'Look',
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(Object.isFrozen(look?.annotations)).toBe(true);
    expect(registry.list()[0]?.annotations).toBe(look?.annotations);
    expect(legacy).not.toHaveProperty('annotations');
  });
});
