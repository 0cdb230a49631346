// What a trace carries is written to a terminal: a newline in a denial reason could forge a
// "✓ success" line below it, an ESC could repaint the screen or retitle the window, and a bidi
// override could reorder what is read. Each such character is shown as an escape instead: C0
// controls, DEL, C1 controls, the Unicode line and paragraph separators and the bidi controls
// (Unicode's Bidi_Control property, the Arabic letter mark U+061C included). Zero-width joiners
// are kept: they reorder nothing, and emoji sequences and Persian words need them.
const unprintable =
  // eslint-disable-next-line no-control-regex -- the control characters are the point
  /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

const named: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/**
 * `text` safe to print on one terminal line: every control, separator or bidi character is
 * written as an escape (`\n`, `\t`, `\u001b`, `\u202e`, …); everything else is kept.
 *
 * @example
 * ```ts
 * printable('denied\n✓ success bash'); // 'denied\\n✓ success bash'
 * ```
 */
export function printable(text: string): string {
  return text.replace(
    unprintable,
    (character) =>
      named[character] ??
      `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
