import { z } from 'zod';

/** The input every peer validates: two numbers. */
export interface AddInput {
  readonly a: number;
  readonly b: number;
}

/** The trivial work every row times: the layer's cost is all that is left to see. */
export function add(input: AddInput): number {
  return input.a + input.b;
}

/** The async form a tool function usually has; the baseline awaits it like every peer. */
export async function addAsync(input: AddInput): Promise<number> {
  return add(input);
}

/** A fresh zod schema for {@link AddInput}, one per peer so none shares another's instance. */
export function addSchema(): z.ZodObject<{ a: z.ZodNumber; b: z.ZodNumber }> {
  return z.object({
    a: z.number().describe('first addend'),
    b: z.number().describe('second addend'),
  });
}

/** The arguments every call gets. */
export const addArguments: AddInput = Object.freeze({ a: 1, b: 2 });

/** The answer every peer must give for {@link addArguments} before it is timed. */
export const addAnswer = 3;
