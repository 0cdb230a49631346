// @candor/registry as a TypeScript user writes against it; copied into the consumer only once
// the registry exports ToolRegistry.
import { calculatorTool } from '@candor/builtins';
import { ToolRegistry } from '@candor/registry';
import { type ToolResponse } from '@candor/tools';
import { divide } from './tools-consumer.js';

function add({ a, b }: { a: number; b: number }): number {
  return a + b;
}

const registry = new ToolRegistry();
registry
  .register(divide)
  .register(add, { name: 'add' })
  .register(calculatorTool());

// @ts-expect-error -- a number is neither a defineTool tool nor a function.
registry.register(42);

export const response: Promise<ToolResponse> = registry.call('divide', {
  a: 1,
  b: 0,
});
