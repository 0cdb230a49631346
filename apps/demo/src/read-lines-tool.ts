import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { classifyError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

/**
 * Reads the first lines of a text file. Cut results are PARTIAL with a reason, and every failure
 * gets its precise code from `classifyError` instead of an "Error:" string.
 */
export function readLinesTool(root: string) {
  return defineTool({
    name: 'read_lines',
    description:
      'Reads up to maxLines lines of a text file, relative to the demo folder.',
    input: z.object({
      path: z.string().min(1),
      maxLines: z.number().int().positive().max(1000).default(20),
    }),
    run: async ({ path, maxLines }) => {
      try {
        const content = await readFile(resolve(root, path), 'utf8');
        const lines = content.split('\n');
        const shown = lines.slice(0, maxLines);
        if (lines.length > maxLines) {
          return ToolResponse.partial(shown.join('\n'), {
            reason: 'truncated',
            data: { path, returnedLines: maxLines, totalLines: lines.length },
          });
        }
        return ToolResponse.success(content, {
          data: { path, totalLines: lines.length },
        });
      } catch (error: unknown) {
        const { code, message, retryable } = classifyError(error);
        return ToolResponse.error(code, message, { retryable, data: { path } });
      }
    },
  });
}
