import { type ModelToolSpec } from '../../chat-model.ts';

// The fields of Gemini's Schema object (an OpenAPI 3.0 subset); anything else is rejected with a
// 400. Source: https://ai.google.dev/api/caching#Schema
const KEPT = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON Schema in Gemini's dialect: `type: [T, "null"]` becomes `nullable`, `const` becomes a
 * one-value `enum`, `anyOf` with `{type: "null"}` becomes `nullable`, and keys Gemini does not
 * know (`additionalProperties`, `$schema`, `exclusiveMinimum`, …) are dropped.
 */
export function toGeminiSchema(schema: unknown): Record<string, unknown> {
  if (!isObject(schema)) return {};
  const out: Record<string, unknown> = {};
  let nullable = false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((type) => type !== 'null');
      nullable ||= types.length < value.length;
      if (types.length === 1) out['type'] = types[0];
      else if (types.length > 1)
        out['anyOf'] = types.map((type: unknown) => ({ type }));
    } else if (key === 'const') {
      out['enum'] = [value];
    } else if (key === 'properties' && isObject(value)) {
      out['properties'] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          toGeminiSchema(child),
        ]),
      );
    } else if (key === 'items') {
      out['items'] = toGeminiSchema(value);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      const options = value.filter(
        (option) => !(isObject(option) && option['type'] === 'null'),
      );
      nullable ||= options.length < value.length;
      if (options.length === 1) Object.assign(out, toGeminiSchema(options[0]));
      else out['anyOf'] = options.map(toGeminiSchema);
    } else if (KEPT.has(key)) {
      out[key] = value;
    }
  }
  if (nullable) out['nullable'] = true;
  return out;
}

/** The request's tools as one Gemini `functionDeclarations` tool; none means no `tools` key. */
export function prepareGeminiTools(tools: readonly ModelToolSpec[]): {
  tools?: Record<string, unknown>[];
} {
  if (tools.length === 0) return {};
  return {
    tools: [
      {
        functionDeclarations: tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: toGeminiSchema(tool.inputSchema),
        })),
      },
    ],
  };
}
