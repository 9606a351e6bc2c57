/**
 * Runs the watches' socket writes of one moment in slices: the first slice at the end of the current
 * tick, the rest each in a later turn of the event loop. One change fans out to every watcher of its
 * resource in the same tick; written all at once, nothing reaches the network until the last of a
 * thousand watchers has been handed its frame (HTTP/2 sends a session's frames after the tick ends).
 * In slices, the first watchers' bytes leave while the rest are still being written, so the network,
 * the kernel and the clients work in parallel with the server. Each watch writes its own frames in
 * order, so the slicing changes when a watch's bytes leave, never their order.
 */
const SLICE = 64;

const pending: (() => void)[] = [];
let head = 0;
let scheduled = false;

/** Asks for `flush` to run soon (at the end of this tick when few are waiting). */
export function scheduleFlush(flush: () => void): void {
  pending.push(flush);
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(runSlice);
}

function runSlice(): void {
  const end = Math.min(head + SLICE, pending.length);
  for (; head < end; head++) {
    const flush = pending[head];
    pending[head] = undefined as never;
    flush();
  }
  if (head < pending.length) {
    setImmediate(runSlice);
    return;
  }
  pending.length = 0;
  head = 0;
  scheduled = false;
}
