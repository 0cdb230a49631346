import { readFileSync } from 'node:fs';
import { ToolResponse } from '@candor/tools';

// #region step-1
/** Step 1: the return type is ToolResponse. Behaviour is unchanged, and still wrong. */
export function read_file(args: { path: string }): ToolResponse {
  try {
    return ToolResponse.success(readFileSync(args.path, 'utf8'));
  } catch {
    return ToolResponse.success(`Error: file not found: ${args.path}`);
  }
}
// #endregion step-1
