/** The package ships no types: the one call datagate makes, as its README describes it. */
declare module 'on-exit-leak-free' {
  /** Calls `flush(object)` at the process's `exit` while `object` lives; it is held weakly. */
  export function register<T extends object>(object: T, flush: (object: T, event: 'exit') => void): void;
}
