import { readFileSync } from 'node:fs';
import { ToolResponse } from '@candor/tools';

// #region step-2
/** Step 2: the success path returns its data too, for code that needs more than text. */
export function read_file(args: { path: string }): ToolResponse {
  try {
    const content = readFileSync(args.path, 'utf8');
    return ToolResponse.success(content, {
      data: { path: args.path, lines: content.split('\n').length },
    });
  } catch {
    return ToolResponse.success(`Error: file not found: ${args.path}`);
  }
}
// #endregion step-2
