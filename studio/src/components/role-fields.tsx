import type { Signal } from '@preact/signals';
import { FieldError, FormError, fieldError, invalidWhen } from './form-errors.tsx';

/** What a role form edits: the `POST /roles` body's members, as the inputs hold them. */
export type RoleDraft = { name: string; description: string; admin: boolean };

/** The body of `POST /roles` and `PATCH /roles/:id` for a draft; an empty description is none. */
export function roleBody(draft: RoleDraft) {
  return { name: draft.name, description: draft.description || null, admin_access: draft.admin };
}

/** A role's name, description and admin access, with each refusal next to its field: new and edit alike. */
export function RoleFields(props: { draft: Signal<RoleDraft>; error: unknown; id: string }) {
  const { draft, error, id } = props;
  const set = (patch: Partial<RoleDraft>) => {
    draft.value = { ...draft.value, ...patch };
  };
  const nameError = fieldError(error, 'name');
  const descriptionError = fieldError(error, 'description');
  return (
    <>
      <label>
        Name
        <input
          name="name"
          required
          value={draft.value.name}
          onInput={(event) => set({ name: event.currentTarget.value })}
          {...invalidWhen(nameError, `${id}-name`)}
        />
        <FieldError id={`${id}-name`} message={nameError} />
      </label>
      <label>
        Description
        <input
          name="description"
          value={draft.value.description}
          onInput={(event) => set({ description: event.currentTarget.value })}
          {...invalidWhen(descriptionError, `${id}-description`)}
        />
        <FieldError id={`${id}-description`} message={descriptionError} />
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={draft.value.admin}
          onChange={(event) => set({ admin: event.currentTarget.checked })}
        />
        Admin access (bypasses every permission)
      </label>
      <FormError error={error} fields={['name', 'description']} />
    </>
  );
}
