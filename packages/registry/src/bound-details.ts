import { snapshotJson } from '@candor/errors';
import { type ToolResponse } from '@candor/tools';

/**
 * An error's details as a bounded JSON snapshot. The details of what a tool threw reach the
 * response as the thrown object held them (nothing else is left unread), so they could be a
 * cycle, or too deep or too large to serialise.
 */
export function boundDetails(response: ToolResponse): ToolResponse {
  if (response.status !== 'error') return response;
  const details = response.errorInfo.details;
  if (details === undefined) return response;
  const snapshot = snapshotJson(details);
  const copy =
    snapshot.ok && typeof snapshot.value === 'object' && snapshot.value !== null
      ? (snapshot.value as Record<string, unknown>)
      : {
          unserialisable: snapshot.ok
            ? 'the details are not a JSON object'
            : snapshot.reason,
        };
  return {
    ...response,
    errorInfo: { ...response.errorInfo, details: copy },
  };
}
