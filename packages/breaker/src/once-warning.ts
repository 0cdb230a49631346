import { describeThrown } from '@candor/errors';
import { type Logger } from '@candor/tools';

/**
 * A handler that warns `message` with the first error it is given and ignores the rest: a broken
 * meter or store would otherwise write a line per call.
 */
export function onceWarning(
  logger: Logger,
  message: string,
): (error: unknown) => void {
  let warned = false;
  return (error) => {
    if (warned) return;
    warned = true;
    logger.warn({ error: describeThrown(error) }, message);
  };
}
