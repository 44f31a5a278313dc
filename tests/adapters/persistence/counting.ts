/** The same object, counting calls per method name: shows which reads reached the store. */
export function counting<T extends object>(inner: T): { repository: T; calls: (method: string) => number } {
  const calls = new Map<string, number>();
  const repository = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { repository, calls: (method) => calls.get(method) ?? 0 };
}
