import { ApiError } from '../api/api-error.ts';

/** An error as a short sentence for people: the API's message and code, never a stack. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorNote(props: { error: unknown }) {
  return (
    <p class="error" role="alert">
      {describeError(props.error)}
    </p>
  );
}
