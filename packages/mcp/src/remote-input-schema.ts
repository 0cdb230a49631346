import { type JsonSchema } from '@candor/tools';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { z } from 'zod';

// One validator (Ajv, shipped inside the official SDK) for every imported tool.
const validator = new AjvJsonSchemaValidator();

/**
 * A zod schema that validates with Ajv against a remote tool's JSON Schema and lists as that same
 * schema, so the registry's INVALID_PARAM path and its specs both see the server's own schema.
 * Throws when the schema itself does not compile.
 */
export function remoteInputSchema(schema: JsonSchema): z.ZodType {
  const { $schema: _dialect, ...listed } = schema;
  const validate = validator.getValidator(schema);
  return z
    .unknown()
    .superRefine((value, context) => {
      const result = validate(value);
      if (!result.valid) {
        context.addIssue({ code: 'custom', message: result.errorMessage });
      }
    })
    .meta(listed);
}
