import { randomUUID } from 'node:crypto';

// Unique within the process and cheap: a random prefix per process, then a counter.
const callIdPrefix = `call_${randomUUID().slice(0, 8)}_`;
let callCount = 0;

/** A call id for a call whose caller gave none. */
export function nextCallId(): string {
  callCount += 1;
  return `${callIdPrefix}${callCount.toString(36)}`;
}
