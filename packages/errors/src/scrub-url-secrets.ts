const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#]*@/gi;
const PARAMETER_NAME = /[?&#;]([^=&#;?\s]*)=/g;
const SECRET_NAME = /token|key|secret|passw|pwd|auth|sig|session|credential/i;
// A secret value runs to the next `&`, `#` or space: a `?` or `;` inside it is still secret.
const VALUE_END = /[&#\s]|$/g;

function scrubParameters(text: string): string {
  let out = '';
  let copied = 0;
  PARAMETER_NAME.lastIndex = 0;
  for (
    let found = PARAMETER_NAME.exec(text);
    found !== null;
    found = PARAMETER_NAME.exec(text)
  ) {
    if (!SECRET_NAME.test(found[1] ?? '')) continue;
    VALUE_END.lastIndex = PARAMETER_NAME.lastIndex;
    const end = VALUE_END.exec(text)?.index ?? text.length;
    out += `${text.slice(copied, PARAMETER_NAME.lastIndex)}***`;
    copied = end;
    PARAMETER_NAME.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Replaces credentials in URLs inside `text` with `***`: the userinfo part and query (or
 * fragment) values whose names say they are secret (`token`, `api_key`, `password`, `sig`,
 * ...). Messages often quote the URL that failed; the model and the logs must not see its
 * secrets.
 */
export function scrubUrlSecrets(text: string): string {
  return scrubParameters(text.replace(URL_USERINFO, '$1***@'));
}
