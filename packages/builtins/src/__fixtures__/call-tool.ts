import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyError } from '@candor/errors';
import {
  type AnyToolDefinition,
  ToolResponse,
  type ToolResponse as ToolResponseType,
} from '@candor/tools';

/** Options of {@link callTool}. */
export interface CallToolOptions {
  readonly signal?: AbortSignal;
}

/**
 * Calls a tool the way the registry does, without importing it: arguments through the zod
 * schema, then `run` with a context, and anything thrown through `classifyError`.
 */
export async function callTool(
  tool: AnyToolDefinition,
  args: unknown,
  options: CallToolOptions = {},
): Promise<ToolResponseType> {
  const parsed = await tool.input.safeParseAsync(args);
  if (!parsed.success) {
    const { code, message } = classifyError(parsed.error);
    return ToolResponse.error(code, message);
  }
  try {
    return await tool.run(parsed.data, {
      signal: options.signal ?? new AbortController().signal,
      callId: `call_${randomUUID()}`,
      toolName: tool.name,
    });
  } catch (error: unknown) {
    const { code, message, retryable } = classifyError(error);
    return ToolResponse.error(code, message, { retryable });
  }
}

/** A fresh temporary directory (its real path) and a function that removes it. */
export async function temporaryRoot(): Promise<{
  readonly root: string;
  readonly cleanup: () => Promise<void>;
}> {
  const root = await realpath(
    await mkdtemp(join(tmpdir(), 'candor-builtins-')),
  );
  return {
    root,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** The error code of a response, or its status when it is not an error. */
export function codeOf(response: ToolResponseType): string {
  return response.status === 'error'
    ? response.errorInfo.code
    : response.status;
}
