const IDLE = Symbol('idle');

/**
 * Groups an async iterator's items into batches: everything already available (resolving within
 * the current turn of the event loop) joins the batch, so a catch-up reads large batches and a
 * quiet live stream yields single events without waiting.
 */
export async function* batched<T>(iterator: AsyncIterator<T>, maxSize: number): AsyncGenerator<T[]> {
  // The read ahead may fail while the consumer works on a batch (or after it gave up): the failure
  // is rethrown when awaited, and must not count as unhandled meanwhile.
  const next = (): Promise<IteratorResult<T>> => {
    const promise = iterator.next();
    promise.catch(() => undefined);
    return promise;
  };
  let pending = next();
  for (;;) {
    const first = await pending;
    if (first.done) return;
    const batch: T[] = [first.value];
    pending = next();
    while (batch.length < maxSize) {
      const item = await Promise.race([pending, new Promise<typeof IDLE>((resolve) => setImmediate(resolve, IDLE))]);
      if (item === IDLE) break;
      if (item.done) {
        yield batch;
        return;
      }
      batch.push(item.value);
      pending = next();
    }
    yield batch;
  }
}
