/** How many leading bytes decide whether a file is text. */
export const BINARY_SNIFF_BYTES = 8192;

/**
 * Why a file's first block is not text, or undefined when it is valid UTF-8 without NUL bytes.
 * `complete` says the block is the whole file, so a cut character at its end is invalid too.
 */
export function binaryReason(
  block: Uint8Array,
  complete: boolean,
): string | undefined {
  if (block.includes(0)) return 'it contains NUL bytes';
  try {
    // `stream` keeps a character cut by the end of the block from counting as invalid.
    new TextDecoder('utf-8', { fatal: true }).decode(block, {
      stream: !complete,
    });
    return undefined;
  } catch {
    return 'it is not valid UTF-8';
  }
}
