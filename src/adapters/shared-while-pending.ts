/**
 * `load`, with the callers that ask for the same key while it runs sharing that one run and its answer.
 * Nothing is kept once it settles: a later ask always runs anew, so an answer is never older than the
 * asking. What a realtime recheck needs: a thousand subscriptions on one credential, re-asked together every
 * second, cost one resolution of it, and one read of the database when its cached user was just dropped.
 */
export function sharedWhilePending<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const pending = new Map<K, Promise<V>>();
  return (key) => {
    const running = pending.get(key);
    if (running) return running;
    const run = load(key).finally(() => pending.delete(key));
    pending.set(key, run);
    return run;
  };
}
