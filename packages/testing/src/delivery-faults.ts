/**
 * An in-stream provider error: `code` is OpenAI `error.code` / Anthropic `error.type` / Gemini
 * `error.status` (e.g. `UNAVAILABLE`).
 */
export interface InStreamError {
  readonly code: string;
  readonly message: string;
  /** The HTTP-style status the error carries; Gemini sends it as `error.code`. Default 500. */
  readonly status?: number;
  /**
   * OpenAI Responses: send an `error` event (default) or a `response.failed` event whose
   * `response.error` carries `code` and `message`.
   */
  readonly event?: 'error' | 'response.failed';
}

/**
 * A named, deterministic way to break the delivery of one response. "Frames" are SSE
 * events for a stream; a non-streaming JSON body is one frame.
 */
export type DeliveryFault =
  | { readonly kind: 'reset-before-headers' }
  | { readonly kind: 'stall-after-frames'; readonly frames: number }
  | { readonly kind: 'abort-after-frames'; readonly frames: number }
  | { readonly kind: 'abort-mid-frame'; readonly frame: number }
  | {
      readonly kind: 'in-stream-error';
      readonly afterFrames: number;
      readonly error: InStreamError;
    }
  | { readonly kind: 'malformed-frame'; readonly frame: number }
  | { readonly kind: 'split-frames'; readonly offsets: readonly number[] }
  | { readonly kind: 'no-terminal-frame' };

/** The `kind` of a {@link DeliveryFault}. */
export type DeliveryFaultKind = DeliveryFault['kind'];

function count(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a whole number >= 0, got ${value}`);
  }
  return value;
}

/**
 * Builders for {@link DeliveryFault}s, so a script reads as the failure it provokes.
 *
 * @example
 * step.deliversWith(deliveryFaults.abortAfterFrames(3));
 */
export const deliveryFaults = {
  /** Reset the TCP connection (RST) before any response header is written. */
  resetBeforeHeaders(): DeliveryFault {
    return { kind: 'reset-before-headers' };
  },
  /** Send the 200 headers, then no bytes until the stream controller resumes it. */
  stallBeforeFirstFrame(): DeliveryFault {
    return { kind: 'stall-after-frames', frames: 0 };
  },
  /** Send `frames` frames, then no bytes until the stream controller resumes it. */
  stallAfterFrames(frames: number): DeliveryFault {
    return { kind: 'stall-after-frames', frames: count(frames, 'frames') };
  },
  /** Send `frames` whole frames, then destroy the socket. */
  abortAfterFrames(frames: number): DeliveryFault {
    return { kind: 'abort-after-frames', frames: count(frames, 'frames') };
  },
  /** Send frames before index `frame`, then half of that frame's bytes, then destroy the socket. */
  abortMidFrame(frame: number): DeliveryFault {
    return { kind: 'abort-mid-frame', frame: count(frame, 'frame') };
  },
  /** After `afterFrames` frames, send the provider's in-stream error event and end the stream. */
  inStreamError(afterFrames: number, error: InStreamError): DeliveryFault {
    return {
      kind: 'in-stream-error',
      afterFrames: count(afterFrames, 'afterFrames'),
      error,
    };
  },
  /** Replace the frame at index `frame` with one whose JSON is broken. */
  malformedFrame(frame: number): DeliveryFault {
    return { kind: 'malformed-frame', frame: count(frame, 'frame') };
  },
  /**
   * Write the response body in separate socket writes cut at these byte offsets, which may
   * fall inside a frame, a JSON token or a multibyte UTF-8 character.
   */
  splitFrames(offsets: readonly number[]): DeliveryFault {
    return {
      kind: 'split-frames',
      offsets: [...offsets]
        .map((offset) => count(offset, 'offset'))
        .sort((a, b) => a - b),
    };
  },
  /** End the stream cleanly without `data: [DONE]` / `message_stop`. */
  noTerminalFrame(): DeliveryFault {
    return { kind: 'no-terminal-frame' };
  },
} as const;
