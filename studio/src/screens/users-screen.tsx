import { useSignal } from '@preact/signals';
import { listAll } from '../api/list-all.ts';
import type { Role, User } from '../api/system-records.ts';
import { CellValue } from '../components/cell-value.tsx';
import { FormError } from '../components/form-errors.tsx';
import { Link } from '../components/link.tsx';
import { useAnswer } from '../components/use-answer.ts';
import { useStudio } from '../studio-context.ts';

const PAGE_SIZE = 50;

/** Every user, a page at a time, with the name of their role; each links to its editor. */
export function UsersScreen() {
  const { api } = useStudio();
  const offset = useSignal(0);
  const users = useAnswer(
    () => api.list<User>('/users', { limit: PAGE_SIZE, offset: offset.value, meta: 'total_count' }),
    [offset.value],
  );
  const roles = useAnswer(() => listAll<Role>(api, '/roles'), []);
  const roleName = (id: string | null) =>
    id === null ? 'none (public)' : (roles.value?.find((role) => role.id === id)?.name ?? id);
  const page = users.value;
  const total = page?.totalCount ?? 0;
  return (
    <section aria-labelledby="users-title">
      <header class="table-header">
        <h1 id="users-title">Users</h1>
        <Link class="button" to="/users/new">
          New user
        </Link>
      </header>
      <FormError error={users.error ?? roles.error} />
      <div class="table-wrap">
        <table aria-busy={page === null && users.error === null} aria-labelledby="users-title">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {page?.rows.map((user) => (
              <tr key={user.id}>
                <td>
                  <Link to={`/users/${user.id}`}>{user.email}</Link>
                </td>
                <td>
                  <CellValue value={[user.first_name, user.last_name].filter(Boolean).join(' ') || null} />
                </td>
                <td>{roleName(user.role)}</td>
                <td class={user.status === 'suspended' ? 'error' : undefined}>{user.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          disabled={offset.value === 0}
          onClick={() => (offset.value = Math.max(0, offset.value - PAGE_SIZE))}
        >
          Previous page
        </button>
        <span>
          {page === null
            ? ''
            : total === 0
              ? 'No users'
              : `${offset.value + 1}–${offset.value + (page?.rows.length ?? 0)} of ${total}`}
        </span>
        <button
          type="button"
          disabled={offset.value + PAGE_SIZE >= total}
          onClick={() => (offset.value += PAGE_SIZE)}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}
