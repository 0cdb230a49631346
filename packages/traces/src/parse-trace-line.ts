/**
 * One physical trace line read as JSON: the object, `undefined` for a blank line (skipped but
 * counted), or the reason it is malformed as a string. A string rather than a thrown error or a
 * wrapper object so the common case allocates nothing beyond `JSON.parse`'s own result.
 */
export function parseTraceLine(
  text: string,
  line: number,
): object | string | undefined {
  let body = text;
  if (line === 1 && body.charCodeAt(0) === 0xfeff) body = body.slice(1);
  // Checked by first character so ordinary lines never pay for a trimmed copy.
  const first = body.charCodeAt(0);
  if (
    body === '' ||
    ((first === 32 || first === 9 || first === 13) && body.trim() === '')
  ) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error: unknown) {
    return error instanceof Error ? error.message : String(error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'not a JSON object';
  }
  return value;
}
