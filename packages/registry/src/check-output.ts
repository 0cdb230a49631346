import { ToolResponse } from '@candor/tools';
import { type Entry } from './call-types.ts';

/**
 * Output checking: the tool's output schema, checked against the data of a response that is not
 * an error.
 */
export function checkOutput(
  entry: Entry,
  response: ToolResponse,
): ToolResponse {
  const schema = entry.tool.output;
  if (schema === undefined || response.status === 'error') return response;
  const checked = schema.safeParse(response.data);
  if (checked.success) return response;
  const problem = checked.error.issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.map(String).join('.') || '(data)'}: ${issue.message}`,
    )
    .join('; ');
  if (entry.tool.idempotent === true) {
    return ToolResponse.error(
      'INTERNAL_ERROR',
      `Tool "${entry.tool.name}" returned data that does not match its output schema: ${problem}`,
      {
        ...('data' in response ? { data: response.data } : {}),
      },
    );
  }
  // The tool has side effects that already happened: redoing it would repeat them.
  return ToolResponse.partial(
    `${response.text}\n\n[Note: the tool ran, but its result does not match its declared output schema (${problem}). Do not run it again just to fix this.]`,
    {
      reason: 'output_schema_mismatch',
      ...('data' in response ? { data: response.data } : {}),
    },
  );
}
