import { readFile } from 'node:fs/promises';
import { classifyError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

// #region step-3
/**
 * Step 3: errors return their most precise code, and a cut result is PARTIAL with a reason.
 * As a defineTool, its arguments are validated before it runs.
 */
export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Reads a text file, up to maxLines lines.',
  input: z.object({
    path: z.string().min(1),
    maxLines: z.number().int().positive().max(10_000).default(200),
  }),
  run: async ({ path, maxLines }) => {
    let content: string;
    try {
      content = await readFile(path, 'utf8');
    } catch (error: unknown) {
      // ENOENT → NOT_FOUND, EISDIR → IS_DIRECTORY, EACCES → PERMISSION_DENIED, …
      const { code, message } = classifyError(error);
      return ToolResponse.error(code, message, { data: { path } });
    }
    const lines = content.split('\n');
    if (lines.length > maxLines) {
      return ToolResponse.partial(lines.slice(0, maxLines).join('\n'), {
        reason: 'truncated',
        data: { path, returnedLines: maxLines, totalLines: lines.length },
      });
    }
    return ToolResponse.success(content, {
      data: { path, totalLines: lines.length },
    });
  },
});
// #endregion step-3
