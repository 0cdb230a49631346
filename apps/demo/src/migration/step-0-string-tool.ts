import { readFileSync } from 'node:fs';

// #region step-0
/** Step 0: the legacy tool. Every outcome is a string, so a failure looks like a success. */
export function read_file(args: { path: string }): string {
  try {
    return readFileSync(args.path, 'utf8');
  } catch {
    return `Error: file not found: ${args.path}`;
  }
}
// #endregion step-0
