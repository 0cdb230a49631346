import { describeThrown, snapshotJson } from '@candor/errors';
import { type SecretRedactor, ToolResponse } from '@candor/tools';
import { type StageResult } from './call-types.ts';
import { decodeArguments } from './decode-arguments.ts';
import { finalResponse } from './final-response.ts';
import { lookupFailure, lookupTool } from './lookup-tool.ts';
import { nextCallId } from './next-call-id.ts';
import { readCallOptions, readToolName } from './read-call-options.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { type CheckResult } from './registry-types.ts';
import { noSecrets, showArguments } from './show-arguments.ts';
import { validateArguments } from './validate-arguments.ts';

/**
 * The stages of a call before approval (options, lookup, decoding, validation), run as `call()`
 * runs them, and nothing after: no tool, no breaker, no span, no event, no log line. A call these
 * stages refuse answers with the response `call()` would give (finished the same way: scrubbed,
 * capped, with its context); one they take answers with the validated input and its censored
 * copy. Never rejects.
 */
// Positional, as `call()` takes them: the registry hands its own arguments straight on.
// eslint-disable-next-line max-params
export async function checkCall(
  seam: RegistrySeam,
  name: unknown,
  args: unknown,
  options: unknown,
): Promise<CheckResult> {
  const started = performance.now();
  const given = readCallOptions(options);
  const callId = given.callId ?? nextCallId();
  const toolName = readToolName(name);
  let params: unknown;
  let secrets: readonly string[] = noSecrets;
  let result: StageResult;
  try {
    const entry = lookupTool(seam, toolName);
    const decoded = decodeArguments(args);
    const shown = showArguments(seam.redactor, args, decoded);
    params = shown.params;
    secrets = shown.secrets;
    if (seam.shutDown || entry === undefined) {
      result = lookupFailure(seam, toolName);
    } else {
      const parsed = await validateArguments(entry.tool.input, decoded);
      if (parsed.ok) {
        const shownInput = censoredInput(seam.redactor, parsed.value, secrets);
        return {
          ok: true,
          toolName,
          callId,
          input: parsed.value,
          params: shownInput,
        };
      }
      result = { stage: 'arguments', response: parsed.response };
    }
  } catch (error: unknown) {
    // Only a bug of ours lands here, as in `call()`.
    result = {
      stage: 'run',
      response: ToolResponse.error(
        'INTERNAL_ERROR',
        `The registry failed while checking the call to "${toolName}": ${describeThrown(error)}`,
      ),
    };
  }
  const done = {
    toolName,
    callId,
    params,
    secrets,
    started,
    result,
    span: undefined,
  };
  try {
    return {
      ok: false,
      response: finalResponse(seam, done, performance.now() - started),
    };
  } catch (error: unknown) {
    return {
      ok: false,
      response: ToolResponse.error(
        'INTERNAL_ERROR',
        `The registry failed while checking the call to "${toolName}": ${describeThrown(error)}`,
      ),
    };
  }
}

/**
 * The validated input as a person may see it: read once into JSON (a transform's `Date` becomes
 * its text), secret-looking keys censored, and the secret values of the arguments as sent
 * scrubbed wherever the schema moved them.
 */
function censoredInput(
  redactor: SecretRedactor,
  input: unknown,
  argumentSecrets: readonly string[],
): unknown {
  const found = [...argumentSecrets];
  const snapshot = snapshotJson(input, { redactor, found });
  if (!snapshot.ok) return `[arguments that are not JSON: ${snapshot.reason}]`;
  return found.length === 0
    ? snapshot.value
    : redactor.censor(snapshot.value, found);
}
