// The bounds of every snapshot `snapshotJson` and `snapshotFields` take, and the budget of the one
// being taken.

/**
 * Containers a snapshot keeps, counting the value itself: a deeper one is {@link TOO_DEEP}. The
 * depth `SecretRedactor` keeps, so arguments read from JSON text and given as objects agree, and
 * whatever reads a response later (`JSON.stringify`, a logger, a schema) never runs out of stack.
 */
export const SNAPSHOT_MAX_DEPTH = 32;

/**
 * About how much JSON text a snapshot keeps: each value, key, bracket and separator counted as
 * JSON writes it, escapes aside (a control character, one here, is six there). Past it, one {@link TOO_LARGE} takes the next value's place and the rest
 * is left out, so a response stays far below the longest string V8 can build (2^29 characters).
 */
export const SNAPSHOT_MAX_CHARS = 2 ** 24;

/** What a container deeper than {@link SNAPSHOT_MAX_DEPTH} becomes: the redactor's own words. */
export const TOO_DEEP = '[Truncated: too deep]';

/** What stands where a snapshot passed {@link SNAPSHOT_MAX_CHARS}; nothing after it is kept. */
export const TOO_LARGE = '[Truncated: too large]';

/**
 * The budget of the snapshot being taken. One object for the process rather than a field of each
 * walk, so a snapshot allocates nothing for it; saved and restored around each snapshot, because
 * a getter or `toJSON` may take a snapshot of its own while one is being taken.
 */
export const budget: { remaining: number; marked: boolean } = {
  remaining: SNAPSHOT_MAX_CHARS,
  /** Whether the snapshot being taken has placed its {@link TOO_LARGE}. */
  marked: false,
};

/** The marker, placed once per snapshot. */
export function tooLarge(): string {
  budget.marked = true;
  return TOO_LARGE;
}
