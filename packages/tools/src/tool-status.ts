/**
 * The three statuses of a tool call. There is no fourth: a call either did what was asked,
 * did part of it, or failed.
 */
export const ToolStatus = {
  SUCCESS: 'success',
  PARTIAL: 'partial',
  ERROR: 'error',
} as const;

/** success, partial or error. */
export type ToolStatus = (typeof ToolStatus)[keyof typeof ToolStatus];
