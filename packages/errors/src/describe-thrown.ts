import { readProperty } from './read-foreign.ts';

const MAX_MESSAGE_LENGTH = 2000;

function withoutStackFrames(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*at\s.+/.test(line))
    .join('\n');
}

/** Removes stack frames and bounds the length, so a message is safe to show a model. */
export function cleanMessage(message: string): string {
  const withoutStack = withoutStackFrames(message).trim();
  if (withoutStack.length <= MAX_MESSAGE_LENGTH) return withoutStack;
  return `${withoutStack.slice(0, MAX_MESSAGE_LENGTH)}… (${withoutStack.length - MAX_MESSAGE_LENGTH} more characters)`;
}

function primitiveText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.trim() === ''
        ? 'An empty string was thrown'
        : cleanMessage(value);
    case 'undefined':
      return 'undefined was thrown (no error details)';
    case 'symbol':
      return `A symbol was thrown: ${value.toString()}`;
    case 'number':
    case 'bigint':
    case 'boolean':
      return `A ${typeof value} was thrown: ${String(value)}`;
    case 'object':
      return 'null was thrown (no error details)';
    case 'function':
      return 'A function was thrown';
  }
}

function objectText(value: object): string {
  const message = readProperty(value, 'message');
  const name = readProperty(value, 'name');
  const label =
    typeof name === 'string' && name.trim() !== '' ? name : undefined;
  if (typeof message === 'string' && message.trim() !== '') {
    return cleanMessage(message);
  }
  if (label !== undefined) return `${cleanMessage(label)} (no message)`;
  try {
    // In JSON a stack's line breaks are escaped, out of reach of cleanMessage: drop `stack`
    // fields and the frames inside every string before stringifying.
    const json = JSON.stringify(value, (key, field: unknown) =>
      key === 'stack'
        ? undefined
        : typeof field === 'string'
          ? withoutStackFrames(field)
          : field,
    );
    if (typeof json === 'string' && json !== '{}') {
      return `A non-error object was thrown: ${cleanMessage(json)}`;
    }
  } catch {
    // Circular or hostile: fall through to the generic description.
  }
  return 'A non-error object was thrown (no message)';
}

/**
 * A readable, stack-free sentence for anything that was thrown. Never throws: hostile getters,
 * proxies, circular objects and empty messages all produce a sentence.
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (
      (typeof thrown === 'object' && thrown !== null) ||
      typeof thrown === 'function'
    ) {
      return objectText(thrown);
    }
    return primitiveText(thrown);
  } catch {
    return 'An unreadable value was thrown';
  }
}
