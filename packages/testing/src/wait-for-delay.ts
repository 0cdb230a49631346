import type { Answer } from './send-error.ts';
import type { QueuedAttempt } from './step.ts';

/**
 * Waits out an attempt's scripted delay: 'elapsed' when it ran out or was resumed, 'closed'
 * when the connection closed first.
 */
export function waitForDelay(
  answer: Answer,
  attempt: QueuedAttempt,
): Promise<'elapsed' | 'closed'> {
  const { record, res } = answer;
  if (attempt.delayMs === 0) {
    return Promise.resolve('elapsed');
  }
  return new Promise((resolve) => {
    const finish = (result: 'elapsed' | 'closed'): void => {
      clearTimeout(timer);
      res.off('close', onClose);
      resolve(result);
    };
    const onClose = (): void => {
      finish('closed');
    };
    const timer = setTimeout(() => {
      finish('elapsed');
    }, attempt.delayMs);
    res.on('close', onClose);
    record.onResume(() => {
      finish(res.destroyed ? 'closed' : 'elapsed');
    });
  });
}
