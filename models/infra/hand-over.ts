/**
 * A webhook's hand-over to Temporal (billing's Stripe events, WhatsApp's messages): items queue in
 * the process and go to Temporal a few at a time (a burst of deliveries must not become a burst of
 * Temporal calls that starves the answers), each call bounded by a deadline. What fails or is still
 * queued when the process dies is left to the webhook's relay, which hands over what is stored and
 * not marked as handed over.
 */
export interface HandOverOptions<T> {
  concurrency: number;
  deadlineMs: number;
  withDeadline: <R>(deadline: number, fn: () => Promise<R>) => Promise<R>;
  onError: (item: T, err: unknown) => void;
}

export function createHandOver<T>(forward: (item: T) => Promise<void>, options: HandOverOptions<T>) {
  const queue: T[] = [];
  let active = 0;
  let idle: (() => void)[] = [];
  const pump = (): void => {
    while (active < options.concurrency && queue.length > 0) {
      const item = queue.shift()!;
      active += 1;
      options
        .withDeadline(Date.now() + options.deadlineMs, () => forward(item))
        .catch((err: unknown) => options.onError(item, err))
        .finally(() => {
          active -= 1;
          pump();
        });
    }
    if (active === 0 && queue.length === 0) {
      for (const resolve of idle) resolve();
      idle = [];
    }
  };
  return {
    /** Queues the item's hand-over; resolves when the queue is empty again. */
    push(item: T): Promise<void> {
      queue.push(item);
      const drained = new Promise<void>((resolve) => idle.push(resolve));
      pump();
      return drained;
    },
    get pending(): number {
      return queue.length + active;
    },
  };
}

export type HandOver<T> = ReturnType<typeof createHandOver<T>>;
