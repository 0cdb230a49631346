import { SNAPSHOT_MAX_CHARS, snapshotJson, TOO_LARGE } from '@candor/errors';
import { type SecretRedactor } from '@candor/tools';
import { type ParsedArguments } from './decode-arguments.ts';

/** No secret values: shared, as nothing changes it. */
export const noSecrets: readonly string[] = Object.freeze([]);

/**
 * The arguments as context and logs show them (JSON values only, secret-looking keys censored),
 * and the secret values found under those keys, in one walk of the arguments.
 */
export function showArguments(
  redactor: SecretRedactor,
  args: unknown,
  decoded: ParsedArguments,
): { readonly params: unknown; readonly secrets: readonly string[] } {
  // A string that is not JSON is shown as the string it is, unless past a snapshot's size.
  if (!decoded.ok) {
    const long = typeof args === 'string' && args.length > SNAPSHOT_MAX_CHARS;
    return { params: long ? TOO_LARGE : args, secrets: noSecrets };
  }
  const secrets: string[] = [];
  // Decoded from JSON text: plain data already, and only censored (the redactor bounds the
  // depth as a snapshot does; a text too long for a snapshot is read as one, for its size).
  if (
    args === undefined ||
    (typeof args === 'string' && args.length <= SNAPSHOT_MAX_CHARS)
  ) {
    return { params: redactor.redact(decoded.value, secrets), secrets };
  }
  // Given as a value: read once into JSON and censored in the same walk.
  const snapshot = snapshotJson(decoded.value, { redactor, found: secrets });
  if (!snapshot.ok) {
    return {
      params: `[arguments that are not JSON: ${snapshot.reason}]`,
      secrets: redactor.secretValues(decoded.value),
    };
  }
  return { params: snapshot.value, secrets };
}
