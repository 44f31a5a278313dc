import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { listAll } from '../api/list-all.ts';
import { ACTIONS, type Action, type Collection, type Permission } from '../api/system-records.ts';
import { useStudio } from '../studio-context.ts';
import { FormError } from './form-errors.tsx';
import { PermissionEditor } from './permission-editor.tsx';
import { useAnswer } from './use-answer.ts';

type Cell = { collection: string; action: Action };

const cellKey = (cell: Cell) => `${cell.collection} ${cell.action}`;

/**
 * A role's permissions as a table: a row per collection, a column per action; each cell says what the
 * role may do there and opens its editor. `role` null is the public role. Collections a permission names
 * but the database lacks (docs/api.md §6: it applies once the table appears) have rows too.
 */
export function PermissionMatrix(props: { roleId: string | null; roleName: string }) {
  const { api } = useStudio();
  const collections = useAnswer(() => api.get<Collection[]>('/collections'), []);
  const permissions = useAnswer(
    () =>
      listAll<Permission>(api, '/permissions', {
        filter: JSON.stringify({ role: props.roleId === null ? { _null: true } : { _eq: props.roleId } }),
      }),
    [props.roleId],
  );
  const editing = useSignal<Cell | null>(null);
  /** The cell whose editor just closed, to give it the focus back. */
  const closed = useSignal<string | null>(null);
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  useEffect(() => {
    if (closed.value === null) return;
    buttons.current.get(closed.value)?.focus();
    closed.value = null;
  }, [closed.value]);

  const error = collections.error ?? permissions.error;
  if (error !== null) return <FormError error={error} />;
  if (!collections.value || !permissions.value) return <p aria-busy="true">Loading permissions…</p>;
  const granted = permissions.value;
  const known = new Map(collections.value.map((collection) => [collection.collection, collection]));
  const names = [...new Set([...known.keys(), ...granted.map((permission) => permission.collection)])].sort(
    (a, b) => a.localeCompare(b),
  );
  const of = (cell: Cell) =>
    granted.filter(
      (permission) => permission.collection === cell.collection && permission.action === cell.action,
    );
  const open = editing.value;
  return (
    <>
      {names.length === 0 ? (
        <p>There is no collection yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="matrix">
            <caption>
              What {props.roleName} may do in each collection. A cell opens the permission of that action.
            </caption>
            <thead>
              <tr>
                <th scope="col">Collection</th>
                {ACTIONS.map((action) => (
                  <th key={action} scope="col">
                    {action}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {names.map((collection) => (
                <tr key={collection}>
                  <th scope="row">
                    {collection}
                    {!known.has(collection) && <span class="muted"> (no such table yet)</span>}
                  </th>
                  {ACTIONS.map((action) => {
                    const cell = { collection, action };
                    const existing = of(cell);
                    return (
                      <td key={action}>
                        <button
                          type="button"
                          class={existing.length > 0 ? 'cell granted' : 'cell'}
                          aria-haspopup="dialog"
                          ref={(button) => {
                            if (button) buttons.current.set(cellKey(cell), button);
                            else buttons.current.delete(cellKey(cell));
                          }}
                          onClick={() => (editing.value = cell)}
                        >
                          <span class="visually-hidden">
                            {collection} {action}:{' '}
                          </span>
                          {summary(existing, action)}
                        </button>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && (
        <PermissionEditor
          role={props.roleId}
          roleName={props.roleName}
          collection={open.collection}
          action={open.action}
          fields={known.get(open.collection)?.fields.map((field) => field.field) ?? null}
          existing={of(open)}
          onClose={(changed) => {
            editing.value = null;
            closed.value = cellKey(open);
            if (changed) permissions.reload();
          }}
        />
      )}
    </>
  );
}

/** A cell's text: which rows, and (but for delete, which has no fields) which fields. */
function summary(existing: Permission[], action: Action): string {
  if (existing.length === 0) return 'none';
  if (existing.length > 1) return `${existing.length} permissions`;
  const permission = existing[0]!;
  const rows =
    permission.permissions === null || Object.keys(permission.permissions).length === 0
      ? 'all rows'
      : 'some rows';
  if (action === 'delete') return rows;
  const fields = permission.fields ?? [];
  const described = fields.includes('*')
    ? 'all fields'
    : fields.length === 0
      ? 'no fields'
      : `${fields.length} field${fields.length === 1 ? '' : 's'}`;
  return `${rows}, ${described}`;
}
