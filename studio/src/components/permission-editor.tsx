import { useSignal } from '@preact/signals';
import { useEffect, useId, useRef } from 'preact/hooks';
import { ApiError } from '../api/api-error.ts';
import type { Action, Permission } from '../api/system-records.ts';
import { useStudio } from '../studio-context.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { FieldError, FormError, fieldError, invalidWhen } from './form-errors.tsx';

/** The members of a permission written as JSON in the editor. */
type JsonMember = 'permissions' | 'validation' | 'presets';

const NEW = -1;

/**
 * The permission(s) of one action of a role on one collection, in a modal dialog: the browser keeps the
 * focus inside it, Escape closes it. Several permissions of one cell combine with OR (docs/api.md §6):
 * they are chosen one at a time. JSON is checked here before it is sent, the rest by the server, whose
 * refusals show next to the member they name.
 */
export function PermissionEditor(props: {
  role: string | null;
  roleName: string;
  collection: string;
  action: Action;
  /** The collection's fields, or null when it has no table yet. */
  fields: string[] | null;
  existing: Permission[];
  onClose: (changed: boolean) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const chosen = useSignal(props.existing.length > 0 ? 0 : NEW);
  const changed = useRef(false);
  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);
  const close = (didChange: boolean) => {
    changed.current ||= didChange;
    dialog.current?.close();
  };
  const permission = chosen.value === NEW ? null : (props.existing[chosen.value] ?? null);
  return (
    <dialog
      ref={dialog}
      class="permission-editor"
      aria-labelledby={`${id}-title`}
      onClose={() => props.onClose(changed.current)}
    >
      <h2 id={`${id}-title`}>
        {props.roleName}: {props.action} on {props.collection}
      </h2>
      {props.existing.length > 1 && (
        <p class="muted">
          {props.roleName} has {props.existing.length} {props.action} permissions here; a row or field is
          allowed when any of them allows it.
        </p>
      )}
      {props.existing.length > 0 && (
        <label>
          Permission
          <select
            value={String(chosen.value)}
            onChange={(event) => (chosen.value = Number(event.currentTarget.value))}
          >
            {props.existing.map((_, index) => (
              <option key={index} value={String(index)}>
                Permission {index + 1}
              </option>
            ))}
            <option value={String(NEW)}>Add another permission</option>
          </select>
        </label>
      )}
      <PermissionForm
        key={permission?.id ?? 'new'}
        {...props}
        permission={permission}
        onSaved={() => close(true)}
        onCancel={() => close(false)}
      />
    </dialog>
  );
}

function PermissionForm(props: {
  role: string | null;
  collection: string;
  action: Action;
  fields: string[] | null;
  permission: Permission | null;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const { api } = useStudio();
  const { action, permission } = props;
  const id = useId();
  const json = useSignal<Record<JsonMember, string>>({
    permissions: jsonText(permission?.permissions ?? null),
    validation: jsonText(permission?.validation ?? null),
    presets: jsonText(permission?.presets ?? null),
  });
  const allFields = useSignal(permission?.fields?.includes('*') ?? false);
  const picked = useSignal<ReadonlySet<string>>(
    new Set((permission?.fields ?? []).filter((field) => field !== '*')),
  );
  /** Errors found before sending (JSON that does not parse), by member; the server's are in `error`. */
  const invalid = useSignal<Partial<Record<JsonMember, string>>>({});
  const error = useSignal<unknown>(null);
  const busy = useSignal(false);
  const choices = [...new Set([...(props.fields ?? []), ...picked.value])];
  const members: JsonMember[] = [
    'permissions',
    ...(action === 'create' || action === 'update' ? (['validation'] as const) : []),
    ...(action === 'create' ? (['presets'] as const) : []),
  ];

  const save = async () => {
    const parsed: Partial<Record<JsonMember, Record<string, unknown> | null>> = {};
    const problems: Partial<Record<JsonMember, string>> = {};
    for (const member of members) {
      const outcome = objectOf(json.value[member]);
      if (typeof outcome === 'string') problems[member] = outcome;
      else parsed[member] = outcome.value;
    }
    invalid.value = problems;
    if (Object.keys(problems).length > 0) {
      document.getElementById(`${id}-${Object.keys(problems)[0]}`)?.focus();
      return;
    }
    const body = {
      role: props.role,
      collection: props.collection,
      action,
      ...parsed,
      ...(action === 'delete' ? {} : { fields: allFields.value ? ['*'] : [...picked.value] }),
    };
    busy.value = true;
    try {
      if (permission) await api.send('PATCH', `/permissions/${permission.id}`, body);
      else await api.send('POST', '/permissions', body);
      props.onSaved();
    } catch (failure) {
      error.value = failure;
      const field = failure instanceof ApiError ? failure.field : undefined;
      if (field) document.getElementById(`${id}-${field}`)?.focus();
    } finally {
      busy.value = false;
    }
  };

  const textarea = (member: JsonMember, label: string) => {
    const message = invalid.value[member] ?? fieldError(error.value, member);
    return (
      <label key={member}>
        {label}
        <textarea
          id={`${id}-${member}`}
          rows={4}
          cols={50}
          spellcheck={false}
          value={json.value[member]}
          onInput={(event) => {
            json.value = { ...json.value, [member]: event.currentTarget.value };
            // What was said of the text before no longer holds once it changes.
            invalid.value = { ...invalid.value, [member]: undefined };
            if (fieldError(error.value, member)) error.value = null;
          }}
          {...invalidWhen(message, `${id}-${member}-error`)}
        />
        <FieldError id={`${id}-${member}-error`} message={message} />
      </label>
    );
  };
  const fieldsError = fieldError(error.value, 'fields');
  return (
    <form
      class="record"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      {textarea('permissions', 'Rows: a filter as JSON (empty: every row)')}
      {action !== 'delete' && (
        <fieldset
          id={`${id}-fields`}
          tabIndex={-1}
          class="fields"
          {...invalidWhen(fieldsError, `${id}-fields-error`)}
        >
          <legend>Fields the role may {action}</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={allFields.value}
              onChange={(event) => (allFields.value = event.currentTarget.checked)}
            />
            All fields (*), those added later too
          </label>
          {!allFields.value && (
            <div class="field-choices">
              {choices.map((field) => (
                <label key={field} class="check">
                  <input
                    type="checkbox"
                    checked={picked.value.has(field)}
                    onChange={(event) => {
                      const next = new Set(picked.value);
                      if (event.currentTarget.checked) next.add(field);
                      else next.delete(field);
                      picked.value = next;
                    }}
                  />
                  {field}
                </label>
              ))}
              {choices.length === 0 && (
                <p class="muted">This collection has no table yet: only * can be chosen.</p>
              )}
            </div>
          )}
          {!allFields.value && picked.value.size === 0 && (
            <p class="muted">No field chosen: this permission grants nothing.</p>
          )}
          <FieldError id={`${id}-fields-error`} message={fieldsError} />
        </fieldset>
      )}
      {members.includes('validation') &&
        textarea('validation', 'Validation: a filter the row must meet, as JSON (empty: none)')}
      {members.includes('presets') &&
        textarea('presets', 'Presets: default values, as a JSON object (empty: none)')}
      <FormError error={error.value} fields={[...members, 'fields']} />
      <div class="actions">
        <button type="submit" disabled={busy.value}>
          Save
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        {permission && (
          <ConfirmButton
            label="Remove permission…"
            question={`Remove this ${action} permission on ${props.collection}?`}
            confirm="Yes, remove"
            onConfirm={async () => {
              try {
                await api.send('DELETE', `/permissions/${permission.id}`);
                props.onSaved();
              } catch (failure) {
                error.value = failure;
              }
            }}
          />
        )}
      </div>
    </form>
  );
}

function jsonText(value: Record<string, unknown> | null): string {
  return value === null ? '' : JSON.stringify(value, null, 2);
}

/** The object a JSON text holds (empty text: null), or why it is not one. */
function objectOf(text: string): { value: Record<string, unknown> | null } | string {
  if (text.trim() === '') return { value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (failure) {
    return `This is not JSON: ${(failure as Error).message}`;
  }
  if (value === null) return { value: null };
  if (typeof value !== 'object' || Array.isArray(value)) return 'This must be a JSON object, { … }.';
  return { value: value as Record<string, unknown> };
}
