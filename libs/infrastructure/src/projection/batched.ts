const IDLE = Symbol('idle');

/**
 * Groups an async iterator's items into batches: everything already available (resolving within
 * the current turn of the event loop) joins the batch, so a catch-up reads large batches and a
 * quiet live stream yields single events without waiting.
 */
export async function* batched<T>(iterator: AsyncIterator<T>, maxSize: number): AsyncGenerator<T[]> {
  let pending = iterator.next();
  for (;;) {
    const first = await pending;
    if (first.done) return;
    const batch: T[] = [first.value];
    pending = iterator.next();
    while (batch.length < maxSize) {
      const next = await Promise.race([pending, new Promise<typeof IDLE>((resolve) => setImmediate(resolve, IDLE))]);
      if (next === IDLE) break;
      if (next.done) {
        yield batch;
        return;
      }
      batch.push(next.value);
      pending = iterator.next();
    }
    yield batch;
  }
}
