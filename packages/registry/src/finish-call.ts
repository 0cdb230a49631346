import { describeThrown } from '@candor/errors';
import { outcomeOf, silentLogger, ToolResponse } from '@candor/tools';
import { type FinishInput, type StageResult } from './call-types.ts';
import { finalResponse } from './final-response.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { noSecrets } from './show-arguments.ts';

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

/** The result of a call that failed inside the registry: only a bug of ours lands here. */
export function failedWhileCalling(
  toolName: string,
  error: unknown,
): StageResult {
  return {
    stage: 'run',
    response: ToolResponse.error(
      'INTERNAL_ERROR',
      `The registry failed while calling "${toolName}": ${describeThrown(error)}`,
    ),
  };
}

/** A call as it leaves the pipeline: its result, or the promise of it. */
export type CallEnd = Omit<FinishInput, 'result'> & {
  readonly result: StageResult | Promise<StageResult>;
};

function isSettled(done: CallEnd): done is FinishInput {
  return !(done.result instanceof Promise);
}

/**
 * Finishing, once the result is there: at once for a result that is a value (a synchronous tool
 * with a synchronous schema, no await at all), after one await for a pending one. Never rejects:
 * a rejected result is a bug of ours, answered as one.
 */
export function finishWhenSettled(
  seam: RegistrySeam,
  done: CallEnd,
): Promise<ToolResponse> {
  if (isSettled(done)) return Promise.resolve(finishSafely(seam, done));
  return finishLater(seam, done);
}

/** {@link finishCall} inside the never-reject boundary: a bug while finishing answers too. */
function finishSafely(seam: RegistrySeam, done: FinishInput): ToolResponse {
  try {
    return finishCall(seam, done);
  } catch (error: unknown) {
    return finishCall(seam, {
      ...done,
      secrets: noSecrets,
      result: {
        stage: done.result.stage,
        response: ToolResponse.error(
          'INTERNAL_ERROR',
          `The registry failed while finishing the call to "${done.toolName}": ${describeThrown(error)}`,
        ),
      },
    });
  }
}

async function finishLater(
  seam: RegistrySeam,
  call: CallEnd,
): Promise<ToolResponse> {
  let result: StageResult;
  try {
    result = await call.result;
  } catch (error: unknown) {
    result = failedWhileCalling(call.toolName, error);
  }
  const { toolName, callId, params, secrets, started, span } = call;
  return finishSafely(seam, {
    toolName,
    callId,
    params,
    secrets,
    started,
    result,
    span,
  });
}
