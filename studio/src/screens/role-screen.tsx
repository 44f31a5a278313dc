import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { PUBLIC_ROLE, type Role } from '../api/system-records.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { FormError } from '../components/form-errors.tsx';
import { Link } from '../components/link.tsx';
import { PermissionMatrix } from '../components/permission-matrix.tsx';
import { type RoleDraft, RoleFields, roleBody } from '../components/role-fields.tsx';
import { useAnswer } from '../components/use-answer.ts';
import { navigate } from '../router.ts';
import { useStudio } from '../studio-context.ts';

/** One role: its name and admin access, its permissions, and a look at the studio as its users see it. */
export function RoleScreen(props: { id: string }) {
  const { api } = useStudio();
  const role = useAnswer(
    () =>
      props.id === PUBLIC_ROLE
        ? Promise.resolve(null)
        : api.get<Role>(`/roles/${encodeURIComponent(props.id)}`),
    [props.id],
  );
  if (props.id === PUBLIC_ROLE) {
    return (
      <section aria-labelledby="role-title">
        <h1 id="role-title">Public</h1>
        <p>What callers without a token, and users without a role, may do.</p>
        <p>
          <Link class="button" to={`/preview/${PUBLIC_ROLE}`}>
            View as this role
          </Link>
        </p>
        <h2>Permissions</h2>
        <PermissionMatrix roleId={null} roleName="Public" />
        <p>
          <Link to="/roles">Back to the roles</Link>
        </p>
      </section>
    );
  }
  if (role.error !== null) return <FormError error={role.error} />;
  if (!role.value) return <p aria-busy="true">Loading…</p>;
  return <RoleEditor key={role.value.id} role={role.value} />;
}

function RoleEditor(props: { role: Role }) {
  const { api } = useStudio();
  const id = useId();
  const current = useSignal(props.role);
  const role = current.value;
  const path = `/roles/${encodeURIComponent(role.id)}`;
  const draft = useSignal<RoleDraft>({
    name: role.name,
    description: role.description ?? '',
    admin: role.admin_access,
  });
  const error = useSignal<unknown>(null);
  const saved = useSignal('');
  const save = async (event: Event) => {
    event.preventDefault();
    saved.value = '';
    try {
      const updated = await api.send<Role>('PATCH', path, roleBody(draft.value));
      if (updated) current.value = updated;
      error.value = null;
      saved.value = 'Saved.';
    } catch (failure) {
      error.value = failure;
    }
  };
  return (
    <section aria-labelledby="role-title">
      <h1 id="role-title">{role.name}</h1>
      <p>
        <Link class="button" to={`/preview/${role.id}`}>
          View as this role
        </Link>
      </p>
      <form class="record" onSubmit={save} aria-label="Role">
        <RoleFields draft={draft} error={error.value} id={id} />
        <div class="actions">
          <button type="submit">Save</button>
          <ConfirmButton
            label="Delete role…"
            question={`Delete ${role.name}? Its permissions go with it, and its users keep no role.`}
            confirm="Yes, delete"
            onConfirm={async () => {
              try {
                await api.send('DELETE', path);
                navigate('/roles');
              } catch (failure) {
                error.value = failure;
              }
            }}
          />
        </div>
        <p role="status">{saved.value}</p>
      </form>
      <h2>Permissions</h2>
      {role.admin_access && (
        <p class="note">
          {role.name} has admin access: it may do everything, whatever its permissions below say.
        </p>
      )}
      <PermissionMatrix roleId={role.id} roleName={role.name} />
      <p>
        <Link to="/roles">Back to the roles</Link>
      </p>
    </section>
  );
}
