import { ApiError } from '../api/api-error.ts';
import { describeError } from './error-note.tsx';

/** The message of an API error about `field` (`extensions.field`), for showing next to that field. */
export function fieldError(error: unknown, field: string): string | null {
  return error instanceof ApiError && error.field === field ? error.message : null;
}

/**
 * What a field's control needs to name its error: `aria-invalid` and `aria-describedby` pointing at the
 * FieldError with the same id.
 */
export function invalidWhen(message: string | null, id: string) {
  return message ? { 'aria-invalid': true as const, 'aria-describedby': id } : {};
}

export function FieldError(props: { id: string; message: string | null }) {
  if (!props.message) return null;
  return (
    <span id={props.id} class="error field-error">
      {props.message}
    </span>
  );
}

/**
 * An error of a form that no field of it shows. The last-admin refusal (docs/api.md §7) is said plainly,
 * with what to do instead, since it is a rule and not a mistake in what was typed.
 */
export function FormError(props: { error: unknown; fields?: readonly string[] }) {
  const { error } = props;
  if (error === null || error === undefined) return null;
  if (error instanceof ApiError && error.field && props.fields?.includes(error.field)) return null;
  const lastAdmin = error instanceof ApiError && error.extensions.reason === 'LAST_ADMIN';
  return (
    <p class="error" role="alert">
      {lastAdmin
        ? `Refused: ${error.message} Give another active user admin access first.`
        : describeError(error)}
    </p>
  );
}
