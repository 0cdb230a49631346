import {
  type AssistantPart,
  type ChatMessage,
  type ModelEvent,
  type ModelToolCall,
  type ProviderData,
} from './chat-model.ts';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/**
 * An assistant turn's parts in order: its `parts` when it has them, else (a message written by
 * hand, or saved before parts existed) its text, then its tool calls.
 */
export function assistantParts(
  message: AssistantMessage,
): readonly AssistantPart[] {
  if (message.parts !== undefined) return message.parts;
  return [
    ...(message.content === ''
      ? []
      : [{ type: 'text' as const, text: message.content }]),
    ...message.toolCalls.map((call) => ({ type: 'tool-call' as const, call })),
  ];
}

interface OpenPart {
  type: 'text' | 'reasoning';
  text: string;
}

/**
 * Collects one model turn from its events: the text, the tool calls and the ordered parts with
 * their provider data. A delta of the other kind, a tool call or an `-end` event closes the open
 * part, so a wire that sends no `-end` events still gets its parts in order.
 */
export class AssistantTurn {
  text = '';
  readonly calls: ModelToolCall[] = [];
  readonly parts: AssistantPart[] = [];
  #open: OpenPart | undefined;

  /** Takes one event; `finish` is the caller's to read. */
  add(event: Exclude<ModelEvent, { type: 'finish' }>): void {
    switch (event.type) {
      case 'text-delta':
        this.text += event.text;
        this.#append('text', event.text);
        return;
      case 'reasoning-delta':
        this.#append('reasoning', event.text);
        return;
      case 'text-end':
        this.#close('text', event.providerData, undefined);
        return;
      case 'reasoning-end':
        this.#close('reasoning', event.providerData, event.redacted);
        return;
      case 'tool-call':
        this.#flush();
        this.calls.push(event.call);
        this.parts.push({ type: 'tool-call', call: event.call });
        return;
    }
  }

  /** The parts so far, the open one included; tool calls replaced by `calls` when given. */
  finishedParts(calls: readonly ModelToolCall[] = this.calls): AssistantPart[] {
    this.#flush();
    let next = 0;
    return this.parts.map((part) => {
      if (part.type !== 'tool-call') return part;
      const call = calls[next];
      next += 1;
      return call === undefined ? part : { type: 'tool-call', call };
    });
  }

  #append(type: OpenPart['type'], text: string): void {
    if (this.#open?.type !== type) {
      this.#flush();
      this.#open = { type, text: '' };
    }
    this.#open.text += text;
  }

  #close(
    type: OpenPart['type'],
    providerData: ProviderData | undefined,
    redacted: boolean | undefined,
  ): void {
    const open: OpenPart =
      this.#open?.type === type ? this.#open : { type, text: '' };
    if (this.#open !== open) this.#flush();
    this.#open = undefined;
    const data = providerData === undefined ? {} : { providerData };
    this.parts.push(
      type === 'text'
        ? { type: 'text', text: open.text, ...data }
        : {
            type: 'reasoning',
            text: open.text,
            ...(redacted === true ? { redacted: true } : {}),
            ...data,
          },
    );
  }

  #flush(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    this.parts.push({ type: open.type, text: open.text });
  }
}
