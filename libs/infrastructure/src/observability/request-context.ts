import { AsyncLocalStorage } from 'node:async_hooks';

/** What every piece of work done for one HTTP request can know about it without being handed it. */
export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` (and everything it starts asynchronously) inside the request's context. */
export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The id of the HTTP request this code runs for, or undefined outside a request (reactors, the CLI). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
