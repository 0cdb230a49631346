import { z } from 'zod';
import { type JsonSchema } from './tool-spec.ts';

type Check = (input: unknown) => boolean;

const checks = new WeakMap<JsonSchema, Check>();
const matchesAll: Check = () => true;

// zod 4.2 and later read JSON Schema; on an older zod, or a schema it cannot read, every input
// passes this check, and the framework asks as it did before (the registry still validates).
function compile(schema: JsonSchema): Check {
  const fromJSONSchema = (
    z as { fromJSONSchema?: (schema: unknown) => z.ZodType }
  ).fromJSONSchema;
  if (typeof fromJSONSchema !== 'function') return matchesAll;
  try {
    const compiled = fromJSONSchema(schema);
    return (input) => compiled.safeParse(input).success;
  } catch {
    return matchesAll;
  }
}

/**
 * Whether `input` matches a tool's input JSON Schema: the check a framework adapter makes before
 * it asks the framework's approval, so a person is never asked to approve a call the registry will
 * refuse as INVALID_PARAM. The registry's own validation stays the one verdict: an input this
 * check refuses is still sent to the registry (which answers INVALID_PARAM) but with approval
 * refused, so a call that never got its approval question never runs.
 */
export function matchesInputSchema(
  schema: JsonSchema,
  input: unknown,
): boolean {
  let check = checks.get(schema);
  if (check === undefined) {
    check = compile(schema);
    checks.set(schema, check);
  }
  return check(input);
}
