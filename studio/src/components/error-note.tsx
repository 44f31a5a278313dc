import { ApiError } from '../api/api-error.ts';

/** An error as a short sentence for people: the API's message and code, never a stack. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Whether asking again, unchanged, may well work: no answer at all, too many requests (429), or a server
 * busy or down for now (5xx). A 4xx other than 429 is about the request, which must change first.
 */
export function mayPassLater(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 429 || error.status >= 500;
  return error instanceof Error;
}

/** The error; with `retry`, and when asking again may work, a "Try again" button after it. */
export function ErrorNote(props: { error: unknown; retry?: () => void }) {
  return (
    <>
      <p class="error" role="alert">
        {describeError(props.error)}
      </p>
      {props.retry && mayPassLater(props.error) && (
        <button type="button" class="retry" onClick={props.retry}>
          Try again
        </button>
      )}
    </>
  );
}
