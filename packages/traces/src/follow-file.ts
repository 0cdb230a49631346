import { watch } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The bytes of a file as it is written, for `--follow`: everything already there, then each
 * append as it lands, until `signal` aborts. Woken by `fs.watch` on the file; a slow poll on the
 * same handle backs it up where watch events are lost (network file systems, some containers).
 */
export async function* followFile(
  path: string,
  { signal, pollMs = 250 }: { signal: AbortSignal; pollMs?: number },
): AsyncGenerator<Uint8Array> {
  const handle = await open(path, 'r');
  let wake: (() => void) | undefined;
  const watcher = watch(path, () => wake?.());
  // A watcher error (the file removed) ends nothing by itself: the poll keeps reading the handle.
  watcher.on('error', () => wake?.());
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    let position = 0;
    const buffer = new Uint8Array(64 * 1024);
    while (!signal.aborted) {
      const { bytesRead } = await handle.read(
        buffer,
        0,
        buffer.length,
        position,
      );
      if (bytesRead > 0) {
        position += bytesRead;
        yield buffer.slice(0, bytesRead);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    watcher.close();
    await handle.close();
  }
}
