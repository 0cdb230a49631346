import { type Logger, type ToolProgress } from '@candor/tools';
import { type ServerContext } from '@modelcontextprotocol/server';

/**
 * Sends a tool's progress reports as `notifications/progress`, when the client asked for them
 * with a `progressToken`. MCP wants each report larger than the last and none after the result:
 * a report that goes backwards, or comes after `end()`, is dropped, and `end()` resolves once the
 * reports already accepted are sent, so the result goes out after them.
 */
export function progressSender(
  context: ServerContext,
  logger: Logger,
):
  | { send: (progress: ToolProgress) => void; end: () => Promise<void> }
  | undefined {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = -Infinity;
  let ended = false;
  let sent = Promise.resolve();
  return {
    send: ({ progress, total, message }) => {
      if (ended || progress <= last) return;
      last = progress;
      const notification = {
        method: 'notifications/progress' as const,
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      };
      sent = sent
        .then(() => context.mcpReq.notify(notification))
        .catch((error: unknown) => {
          logger.debug({ error: describe(error) }, 'progress not sent');
        });
    },
    end: () => {
      ended = true;
      return sent;
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
