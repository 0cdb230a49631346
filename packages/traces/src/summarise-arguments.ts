const defaultWidth = 80;
const messyWhitespace = /[^\S ]| {2}|^ | $/u;

/**
 * A one-line summary of a call's arguments, at most `width` characters. Strings are shown as
 * they are (codex gives the command line); anything else as compact JSON.
 */
export function summariseArguments(
  args: unknown,
  width = defaultWidth,
): string {
  if (args === undefined || args === null) return '';
  let text: string;
  if (typeof args === 'string') {
    // Only the head can show, so only the head is flattened; JSON below has no raw line breaks.
    const head = args.slice(0, width * 4);
    // Most commands are already one tidy line; only flatten when there is something to flatten.
    text = messyWhitespace.test(head)
      ? head.replace(/\s+/gu, ' ').trim()
      : head;
  } else {
    try {
      text = JSON.stringify(args);
    } catch {
      // Values parsed from JSON always serialise; a caller may still pass a cycle or a bigint.
      text = '[arguments not serialisable]';
    }
  }
  if (text.length > width) return `${text.slice(0, width - 1)}…`;
  // V8 returns JSON.stringify's text as a tree of pieces (a dozen objects for a small object);
  // reading one character flattens it into one string. A normaliser holds a summary per call in
  // its window, so the tree would cost ~45 bytes and five objects a call for the GC to copy.
  text.charCodeAt(0);
  return text;
}
