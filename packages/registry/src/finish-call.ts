import { outcomeOf, silentLogger, type ToolResponse } from '@candor/tools';
import { type FinishInput } from './call-types.ts';
import { finalResponse } from './final-response.ts';
import { type RegistrySeam } from './registry-seam.ts';

/**
 * Finishing: the response that leaves the seam (see {@link finalResponse}), the span ended, one
 * log line and one `tool:end` event. The default logger is silent and most registries have no
 * listener, so nothing is built for them.
 */
export function finishCall(
  seam: RegistrySeam,
  done: FinishInput,
): ToolResponse {
  const { toolName, callId, params, started, result } = done;
  const durationMs = performance.now() - started;
  const finished = finalResponse(seam, done, durationMs);
  const outcome = outcomeOf(finished);
  const code =
    finished.status === 'error' ? finished.errorInfo.code : undefined;
  seam.telemetry?.end(done.span, done, finished);
  // The default logger is silent, and most registries have no listener: build nothing for them.
  if (seam.logger !== silentLogger) {
    const fields = {
      tool: toolName,
      callId,
      outcome,
      ...(code === undefined ? {} : { code }),
      durationMs,
      resultLength: finished.text.length,
      stage: result.stage,
      params,
    };
    if (outcome === 'error') seam.logger.warn(fields, 'tool call failed');
    else seam.logger.info(fields, 'tool call finished');
  }
  if (seam.events.has('tool:end')) {
    const resultLength = finished.text.length;
    const stage = result.stage;
    const response = finished;
    seam.events.emit(
      'tool:end',
      code === undefined
        ? {
            toolName,
            callId,
            outcome,
            durationMs,
            resultLength,
            stage,
            response,
          }
        : {
            toolName,
            callId,
            outcome,
            code,
            durationMs,
            resultLength,
            stage,
            response,
          },
    );
  }
  return finished;
}
