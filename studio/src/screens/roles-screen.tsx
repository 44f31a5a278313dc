import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { listAll } from '../api/list-all.ts';
import { PUBLIC_ROLE, type Role } from '../api/system-records.ts';
import { CellValue } from '../components/cell-value.tsx';
import { FormError } from '../components/form-errors.tsx';
import { Link } from '../components/link.tsx';
import { type RoleDraft, RoleFields, roleBody } from '../components/role-fields.tsx';
import { useAnswer } from '../components/use-answer.ts';
import { navigate } from '../router.ts';
import { useStudio } from '../studio-context.ts';

/** The roles, and the public role that callers without a token and users without a role have. */
export function RolesScreen() {
  const { api } = useStudio();
  const roles = useAnswer(() => listAll<Role>(api, '/roles'), []);
  return (
    <section aria-labelledby="roles-title">
      <h1 id="roles-title">Roles</h1>
      <FormError error={roles.error} />
      <div class="table-wrap">
        <table aria-busy={roles.value === null && roles.error === null} aria-labelledby="roles-title">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Admin access</th>
            </tr>
          </thead>
          <tbody>
            {roles.value?.map((role) => (
              <tr key={role.id}>
                <td>
                  <Link to={`/roles/${role.id}`}>{role.name}</Link>
                </td>
                <td>
                  <CellValue value={role.description} />
                </td>
                <td>{role.admin_access ? 'yes: every permission' : 'no'}</td>
              </tr>
            ))}
            <tr>
              <td>
                <Link to={`/roles/${PUBLIC_ROLE}`}>Public</Link>
              </td>
              <td>Callers without a token, and users without a role</td>
              <td>no</td>
            </tr>
          </tbody>
        </table>
      </div>
      <NewRoleForm />
    </section>
  );
}

function NewRoleForm() {
  const { api } = useStudio();
  const id = useId();
  const draft = useSignal<RoleDraft>({ name: '', description: '', admin: false });
  const error = useSignal<unknown>(null);
  return (
    <form
      class="record"
      aria-labelledby={`${id}-title`}
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          const role = await api.send<Role>('POST', '/roles', roleBody(draft.value));
          if (role) navigate(`/roles/${role.id}`);
        } catch (failure) {
          error.value = failure;
        }
      }}
    >
      <h2 id={`${id}-title`}>New role</h2>
      <RoleFields draft={draft} error={error.value} id={id} />
      <div>
        <button type="submit">Create role</button>
      </div>
    </form>
  );
}
