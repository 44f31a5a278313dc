import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { PUBLIC_ROLE, type Role } from '../api/system-records.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { FieldError, FormError, fieldError, invalidWhen } from '../components/form-errors.tsx';
import { Link } from '../components/link.tsx';
import { PermissionMatrix } from '../components/permission-matrix.tsx';
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
  const name = useSignal(role.name);
  const description = useSignal(role.description ?? '');
  const admin = useSignal(role.admin_access);
  const error = useSignal<unknown>(null);
  const saved = useSignal('');
  const nameError = fieldError(error.value, 'name');
  const descriptionError = fieldError(error.value, 'description');
  const save = async (event: Event) => {
    event.preventDefault();
    saved.value = '';
    try {
      const updated = await api.send<Role>('PATCH', path, {
        name: name.value,
        description: description.value || null,
        admin_access: admin.value,
      });
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
        <label>
          Name
          <input
            name="name"
            required
            value={name.value}
            onInput={(event) => (name.value = event.currentTarget.value)}
            {...invalidWhen(nameError, `${id}-name`)}
          />
          <FieldError id={`${id}-name`} message={nameError} />
        </label>
        <label>
          Description
          <input
            name="description"
            value={description.value}
            onInput={(event) => (description.value = event.currentTarget.value)}
            {...invalidWhen(descriptionError, `${id}-description`)}
          />
          <FieldError id={`${id}-description`} message={descriptionError} />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={admin.value}
            onChange={(event) => (admin.value = event.currentTarget.checked)}
          />
          Admin access (bypasses every permission)
        </label>
        <FormError error={error.value} fields={['name', 'description']} />
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
