import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { listAll } from '../api/list-all.ts';
import { PUBLIC_ROLE, type Role } from '../api/system-records.ts';
import { CellValue } from '../components/cell-value.tsx';
import { FieldError, FormError, fieldError, invalidWhen } from '../components/form-errors.tsx';
import { Link } from '../components/link.tsx';
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
        <table aria-busy={roles.value === null} aria-labelledby="roles-title">
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
  const name = useSignal('');
  const description = useSignal('');
  const admin = useSignal(false);
  const error = useSignal<unknown>(null);
  const nameError = fieldError(error.value, 'name');
  const descriptionError = fieldError(error.value, 'description');
  return (
    <form
      class="record"
      aria-labelledby={`${id}-title`}
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          const role = await api.send<Role>('POST', '/roles', {
            name: name.value,
            description: description.value || null,
            admin_access: admin.value,
          });
          if (role) navigate(`/roles/${role.id}`);
        } catch (failure) {
          error.value = failure;
        }
      }}
    >
      <h2 id={`${id}-title`}>New role</h2>
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
      <div>
        <button type="submit">Create role</button>
      </div>
    </form>
  );
}
