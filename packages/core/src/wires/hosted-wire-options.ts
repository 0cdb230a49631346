/** What a hosted vendor's wire (Anthropic, Gemini) checks in its options before any request. */
export interface HostedWireOptions {
  readonly apiKey?: string;
  readonly model: string;
  readonly baseURL?: string;
}

/**
 * The API key (from the options or the environment), the model and the base URL without a
 * trailing slash, each checked when the model is made: a wire that is missing one fails here
 * with the wire's name and the variable to set, not later on the first request.
 */
export function hostedWireOptions(
  wire: string,
  options: HostedWireOptions,
  defaults: { readonly apiKeyVariable: string; readonly baseURL: string },
): { readonly apiKey: string; readonly baseURL: string } {
  const apiKey = options.apiKey ?? process.env[defaults.apiKeyVariable];
  // A blank key is as missing as none ("ANTHROPIC_API_KEY= " in a .env file).
  if (apiKey === undefined || apiKey.trim() === '') {
    throw new TypeError(
      `${wire}: an apiKey is required (pass { apiKey } or set ${defaults.apiKeyVariable})`,
    );
  }
  if (typeof options.model !== 'string' || options.model === '') {
    throw new TypeError(`${wire}: model is required`);
  }
  const baseURL = (options.baseURL ?? defaults.baseURL).replace(/\/+$/, '');
  try {
    new URL(baseURL);
  } catch {
    throw new TypeError(
      `${wire}: baseURL must be an absolute URL, got ${JSON.stringify(options.baseURL)}`,
    );
  }
  return { apiKey, baseURL };
}

/**
 * The message of a vendor's JSON error body, `{ error: { <kind>, message } }`, as
 * `kind: message` (Anthropic's `type`, Google's `status`), or the message alone without a kind.
 */
export function vendorErrorMessage(
  body: unknown,
  kind: 'type' | 'status',
): string | undefined {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  const message = error?.['message'];
  if (typeof message !== 'string') return undefined;
  const label = error?.[kind];
  return typeof label === 'string' ? `${label}: ${message}` : message;
}
