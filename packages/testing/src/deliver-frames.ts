import type { ServerResponse } from 'node:http';
import type { AttemptRecord } from './attempt-record.ts';
import type { DeliveryFault } from './delivery-faults.ts';
import type {
  Frame,
  ProviderProtocol,
  RenderedReply,
} from './provider-protocol.ts';

/** One socket write and the frames it completes. */
interface Piece {
  readonly bytes: Buffer;
  readonly completes: readonly string[];
}

/** What happens after the planned pieces are written. */
type Ending = 'end' | 'abort' | 'stall-then-end';

interface Plan {
  readonly pieces: readonly Piece[];
  /** Index of the piece before which a scripted stall begins, if any. */
  readonly stallBefore: number | undefined;
  readonly ending: Ending;
}

function wholeFrames(frames: readonly string[]): Piece[] {
  return frames.map((text) => ({
    bytes: Buffer.from(text),
    completes: [text],
  }));
}

function splitPieces(
  frames: readonly string[],
  offsets: readonly number[],
): Piece[] {
  const all = Buffer.from(frames.join(''));
  const ends: number[] = [];
  let end = 0;
  for (const text of frames) {
    end += Buffer.byteLength(text);
    ends.push(end);
  }
  const cuts = [
    ...new Set(offsets.filter((offset) => offset > 0 && offset < all.length)),
  ];
  const pieces: Piece[] = [];
  let start = 0;
  let frameIndex = 0;
  for (const cut of [...cuts, all.length]) {
    const completes: string[] = [];
    while (
      frameIndex < frames.length &&
      (ends[frameIndex] ?? Infinity) <= cut
    ) {
      completes.push(frames[frameIndex] ?? '');
      frameIndex += 1;
    }
    pieces.push({ bytes: all.subarray(start, cut), completes });
    start = cut;
  }
  return pieces;
}

function transformFrames(
  frames: readonly Frame[],
  fault: DeliveryFault | undefined,
  protocol: ProviderProtocol,
): readonly string[] {
  switch (fault?.kind) {
    case 'no-terminal-frame':
      return frames
        .filter((frame) => !frame.terminal)
        .map((frame) => frame.text);
    case 'malformed-frame':
      return frames.map((frame, index) =>
        index === fault.frame ? protocol.malformedFrame(frame) : frame.text,
      );
    case 'in-stream-error':
      return [
        ...frames.slice(0, fault.afterFrames).map((frame) => frame.text),
        protocol.streamErrorFrame(
          {
            // An error after a 200 is a server-side failure: OpenAI renders it as server_error.
            status: fault.error.status ?? 500,
            code: fault.error.code,
            message: fault.error.message,
          },
          fault.error,
        ),
      ];
    case undefined:
    case 'reset-before-headers':
    case 'stall-after-frames':
    case 'abort-after-frames':
    case 'abort-mid-frame':
    case 'split-frames':
      return frames.map((frame) => frame.text);
  }
}

function plan(
  frames: readonly string[],
  fault: DeliveryFault | undefined,
): Plan {
  switch (fault?.kind) {
    case 'stall-after-frames':
      return {
        pieces: wholeFrames(frames),
        stallBefore: fault.frames,
        ending: fault.frames >= frames.length ? 'stall-then-end' : 'end',
      };
    case 'abort-after-frames':
      return {
        pieces: wholeFrames(frames.slice(0, fault.frames)),
        stallBefore: undefined,
        ending: 'abort',
      };
    case 'abort-mid-frame': {
      const cut = frames[fault.frame] ?? '';
      const bytes = Buffer.from(cut);
      return {
        pieces: [
          ...wholeFrames(frames.slice(0, fault.frame)),
          {
            bytes: bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))),
            completes: [],
          },
        ],
        stallBefore: undefined,
        ending: 'abort',
      };
    }
    case 'split-frames':
      return {
        pieces: splitPieces(frames, fault.offsets),
        stallBefore: undefined,
        ending: 'end',
      };
    case undefined:
    case 'reset-before-headers':
    case 'no-terminal-frame':
    case 'malformed-frame':
    case 'in-stream-error':
      return {
        pieces: wholeFrames(frames),
        stallBefore: undefined,
        ending: 'end',
      };
  }
}

function write(
  res: ServerResponse,
  bytes: Buffer,
  record: AttemptRecord,
): Promise<void> {
  return new Promise((resolve) => {
    // A destroyed socket may never call back; settling ends the wait instead.
    void record.settled.then(() => {
      resolve();
    });
    res.write(bytes, () => {
      resolve();
    });
  });
}

// A function call, so the compiler does not narrow `destroyed` across awaits.
function isGone(res: ServerResponse): boolean {
  return res.destroyed;
}

/** Options for {@link deliverFrames}. */
export interface DeliverOptions {
  readonly res: ServerResponse;
  readonly record: AttemptRecord;
  readonly protocol: ProviderProtocol;
  readonly rendered: RenderedReply;
  readonly fault: DeliveryFault | undefined;
  readonly requestId: string;
}

/**
 * Writes a 200 response frame by frame, applying the fault. Every write waits for the
 * socket's callback, so `sent(n)` means the bytes reached the kernel.
 */
export async function deliverFrames(options: DeliverOptions): Promise<void> {
  const { res, record, protocol, rendered, fault } = options;
  const frames = transformFrames(rendered.frames, fault, protocol);
  const { pieces, stallBefore, ending } = plan(frames, fault);
  const streaming = rendered.contentType.startsWith('text/event-stream');
  res.writeHead(200, {
    'content-type': rendered.contentType,
    [protocol.requestIdHeader]: options.requestId,
    ...(streaming
      ? { 'cache-control': 'no-cache' }
      : { 'content-length': String(Buffer.byteLength(frames.join(''))) }),
  });
  record.status = 200;
  res.flushHeaders();
  for (const [index, piece] of pieces.entries()) {
    if (index === stallBefore) {
      record.requestStall();
    }
    await record.gate();
    if (isGone(res)) {
      return;
    }
    await write(res, piece.bytes, record);
    if (isGone(res)) {
      return;
    }
    record.recordWrite(piece.bytes.length, piece.completes);
  }
  if (ending === 'abort') {
    record.abort();
    return;
  }
  if (ending === 'stall-then-end') {
    record.requestStall();
  }
  await record.gate();
  if (!isGone(res)) {
    res.end();
  }
}
