import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';

/** What a screen loaded: nothing yet, the answer, or why it failed (and no answer); `reload` asks again. */
export type Answer<T> = { value: T | null; error: unknown; reload(): void };

/** Loads once per change of `deps`; an answer that comes after a newer request started is ignored. */
export function useAnswer<T>(load: () => Promise<T>, deps: unknown[]): Answer<T> {
  const value = useSignal<T | null>(null);
  const error = useSignal<unknown>(null);
  const version = useSignal(0);
  useEffect(() => {
    let current = true;
    load().then(
      (answer) => {
        if (!current) return;
        value.value = answer;
        error.value = null;
      },
      (failure) => {
        if (!current) return;
        // The last answer was to other `deps` (another page of users): beside this error it would read as
        // this request's answer.
        value.value = null;
        error.value = failure;
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, version.value]);
  return {
    value: value.value,
    error: error.value,
    reload: () => {
      version.value++;
    },
  };
}
