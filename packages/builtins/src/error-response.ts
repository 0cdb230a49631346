import { type ErrorResponse, ToolResponse } from '@candor/tools';
import { systemErrorCode } from './system-error-code.ts';

// The code comes from classifyError, the one boundary; these only word the message with the
// workspace path the model used, instead of Node's text with the absolute path.
const fileMessages: Readonly<Record<string, (path: string) => string>> = {
  ENOENT: (path) => `Nothing exists at ${path}`,
  ENOTDIR: (path) => `Nothing exists at ${path}: a parent is not a directory`,
  EACCES: (path) => `The operating system denied access to ${path}`,
  EPERM: (path) => `The operating system does not permit this on ${path}`,
  EISDIR: (path) => `${path} is a directory`,
  EFBIG: (path) =>
    `${path} was not written: the content is over the file-size limit of the process (EFBIG)`,
};

/**
 * Turns anything thrown while working on a path into an ERROR response, classified by
 * `classifyError`. System errors on a path get a message naming the workspace path.
 */
export function errorResponse(
  error: unknown,
  path?: string,
  data?: Readonly<Record<string, unknown>>,
): ErrorResponse {
  const payload = { ...(path === undefined ? {} : { path }), ...data };
  const response = ToolResponse.fromThrown(error, { data: payload });
  // classifyError names only the codes it maps; EFBIG stays EXECUTION_ERROR.
  const systemCode =
    response.errorInfo.details?.['systemCode'] ?? systemErrorCode(error);
  const wording =
    path !== undefined &&
    typeof systemCode === 'string' &&
    Object.hasOwn(fileMessages, systemCode)
      ? fileMessages[systemCode]
      : undefined;
  if (wording === undefined || path === undefined) return response;
  return ToolResponse.error(response.errorInfo.code, wording(path), {
    details: { systemCode },
    data: payload,
  });
}
