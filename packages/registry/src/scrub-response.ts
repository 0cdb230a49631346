import { type SecretRedactor, type ToolResponse } from '@candor/tools';

/**
 * The one redaction of what leaves the seam: secret-looking keys are censored in the data,
 * details and context, and every secret value (from the arguments or from the response's own
 * secret keys) is scrubbed from every string the response carries. Events, logs, spans, the
 * agent and the model all read this response, so none of them can see the secret.
 *
 * Keys the wire schema does not name, at the top or in `errorInfo`, are kept (as the schema
 * keeps them), so they are censored the same way.
 *
 * One walk looks for secret keys and values first; when there is neither (most calls), the
 * censoring would change nothing, and the response is returned as it is.
 */
// Positional, as every stage on the hot path: an options object would be one more allocation
// per call.
// eslint-disable-next-line max-params
export function scrubResponse(
  redactor: SecretRedactor,
  response: ToolResponse,
  argumentSecrets: readonly string[],
  unnamed: boolean,
): ToolResponse {
  const details =
    response.status === 'error' ? response.errorInfo.details : undefined;
  // Most calls: no secret from the arguments, and nothing a secret key could hide in (no data,
  // details, context or other field that is an object); the walks below would find nothing.
  if (
    argumentSecrets.length === 0 &&
    !unnamed &&
    response.status !== 'error' &&
    !isObject('data' in response ? response.data : undefined) &&
    !isObject(response.context)
  ) {
    return response;
  }
  const secrets = argumentSecrets.length === 0 ? [] : [...argumentSecrets];
  const dataKeyed =
    'data' in response && redactor.collectSecrets(response.data, secrets);
  const detailsKeyed = redactor.collectSecrets(details, secrets);
  const contextKeyed = redactor.collectSecrets(response.context, secrets);
  const extra = unnamed ? unnamedFields(response, namedResponseKey) : undefined;
  const extraInfo =
    response.status === 'error'
      ? unnamedFields(response.errorInfo, namedErrorInfoKey)
      : undefined;
  const extraKeyed =
    extra !== undefined && redactor.collectSecrets(extra, secrets);
  const extraInfoKeyed =
    extraInfo !== undefined && redactor.collectSecrets(extraInfo, secrets);
  if (
    !dataKeyed &&
    !detailsKeyed &&
    !contextKeyed &&
    !extraKeyed &&
    !extraInfoKeyed &&
    secrets.length === 0
  ) {
    return response;
  }
  const censor = <T>(value: T): T => redactor.censor(value, secrets) as T;
  const shared = {
    // Spread first: the named fields below are never among them.
    ...(extra === undefined ? {} : censor(extra)),
    text: censor(response.text),
    ...('data' in response ? { data: censor(response.data) } : {}),
    ...(response.context === undefined
      ? {}
      : { context: censor(response.context) }),
  };
  switch (response.status) {
    case 'success':
      return { ...response, ...shared };
    case 'partial':
      return { ...response, ...shared, reason: censor(response.reason) };
    case 'error':
      return {
        ...response,
        ...shared,
        errorInfo: {
          ...response.errorInfo,
          ...(extraInfo === undefined ? {} : censor(extraInfo)),
          message: censor(response.errorInfo.message),
          ...(response.errorInfo.details === undefined
            ? {}
            : { details: censor(response.errorInfo.details) }),
        },
      };
  }
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Whether `key` is a field the wire schema names for a response of this status. */
function namedResponseKey(key: string, response: object): boolean {
  switch (key) {
    case 'status':
    case 'text':
    case 'data':
    case 'stats':
    case 'context':
      return true;
    case 'reason':
      return (response as ToolResponse).status === 'partial';
    case 'errorInfo':
      return (response as ToolResponse).status === 'error';
    default:
      return false;
  }
}

/** Whether `key` is a field the wire schema names in `errorInfo`. */
function namedErrorInfoKey(key: string): boolean {
  switch (key) {
    case 'code':
    case 'message':
    case 'retryable':
    case 'retryAfterMs':
    case 'details':
    case 'cancelled':
    case 'denied':
      return true;
    default:
      return false;
  }
}

/**
 * The fields of a (plain, validated) object whose keys the wire schema does not name, or
 * `undefined` when there are none, as for nearly every response.
 */
function unnamedFields(
  value: object,
  named: (key: string, value: object) => boolean,
): Record<string, unknown> | undefined {
  let any = false;
  // A first look that allocates nothing: most responses have no such key.
  for (const key in value) {
    if (!named(key, value)) {
      any = true;
      break;
    }
  }
  if (!any) return undefined;
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (named(key, value)) continue;
    extra ??= {};
    // Plain data: an own `__proto__` key stays a key.
    Object.defineProperty(extra, key, {
      value: (value as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return extra;
}

/** Whether a response carries keys the wire schema does not name (it keeps them). */
export function hasUnnamedKeys(response: ToolResponse): boolean {
  for (const key in response) if (!namedResponseKey(key, response)) return true;
  return false;
}
