import { type Signal, useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { listAll } from '../api/list-all.ts';
import type { Role, User } from '../api/system-records.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { FieldError, FormError, fieldError, invalidWhen } from '../components/form-errors.tsx';
import { Link } from '../components/link.tsx';
import { useAnswer } from '../components/use-answer.ts';
import { navigate } from '../router.ts';
import { useStudio } from '../studio-context.ts';

/** The members the form edits, as text; `role` is '' for no role. */
type Draft = {
  email: string;
  password: string;
  role: string;
  first_name: string;
  last_name: string;
  status: User['status'];
};

const FIELDS = ['email', 'password', 'role', 'first_name', 'last_name', 'status'] as const;

export function NewUserScreen() {
  const { api } = useStudio();
  const roles = useAnswer(() => listAll<Role>(api, '/roles'), []);
  const draft = useSignal<Draft>({
    email: '',
    password: '',
    role: '',
    first_name: '',
    last_name: '',
    status: 'active',
  });
  const error = useSignal<unknown>(null);
  const submit = async () => {
    const { role, first_name, last_name, ...rest } = draft.value;
    try {
      await api.send('POST', '/users', {
        ...rest,
        role: role || null,
        first_name: first_name || null,
        last_name: last_name || null,
      });
      navigate('/users');
    } catch (failure) {
      error.value = failure;
    }
  };
  return (
    <section aria-labelledby="user-title">
      <h1 id="user-title">New user</h1>
      <UserForm
        draft={draft}
        roles={roles.value ?? []}
        error={error.value ?? roles.error}
        creating
        onSubmit={submit}
      />
      <p>
        <Link to="/users">Back to the users</Link>
      </p>
    </section>
  );
}

/** One user: their names, role and status, a new password; suspend or reactivate; delete. */
export function UserScreen(props: { id: string }) {
  const { api } = useStudio();
  const path = `/users/${encodeURIComponent(props.id)}`;
  const user = useAnswer(() => api.get<User>(path), [path]);
  const roles = useAnswer(() => listAll<Role>(api, '/roles'), []);
  if (user.error !== null) return <FormError error={user.error} />;
  if (!user.value) return <p aria-busy="true">Loading…</p>;
  return <UserEditor key={user.value.id} user={user.value} roles={roles.value ?? []} />;
}

function draftOf(user: User): Draft {
  return {
    email: user.email,
    password: '',
    role: user.role ?? '',
    first_name: user.first_name ?? '',
    last_name: user.last_name ?? '',
    status: user.status,
  };
}

function UserEditor(props: { user: User; roles: Role[] }) {
  const { api } = useStudio();
  const current = useSignal(props.user);
  const user = current.value;
  const path = `/users/${encodeURIComponent(user.id)}`;
  const draft = useSignal<Draft>(draftOf(user));
  const error = useSignal<unknown>(null);
  const saved = useSignal('');
  const patch = async (body: Partial<Record<keyof Draft, string | null>>, done: string) => {
    saved.value = '';
    try {
      const updated = await api.send<User>('PATCH', path, body);
      if (updated) {
        current.value = updated;
        draft.value = draftOf(updated);
      }
      error.value = null;
      saved.value = done;
    } catch (failure) {
      error.value = failure;
    }
  };
  const changes = () => {
    const now = draft.value;
    const body: Partial<Record<keyof Draft, string | null>> = {};
    if (now.email !== user.email) body.email = now.email;
    if (now.password) body.password = now.password;
    if ((now.role || null) !== user.role) body.role = now.role || null;
    if ((now.first_name || null) !== user.first_name) body.first_name = now.first_name || null;
    if ((now.last_name || null) !== user.last_name) body.last_name = now.last_name || null;
    if (now.status !== user.status) body.status = now.status;
    return body;
  };
  const suspended = user.status === 'suspended';
  return (
    <section aria-labelledby="user-title">
      <h1 id="user-title">{user.email}</h1>
      <UserForm
        draft={draft}
        roles={props.roles}
        error={error.value}
        onSubmit={() => patch(changes(), 'Saved.')}
      />
      <p role="status">{saved.value}</p>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            patch(
              { status: suspended ? 'active' : 'suspended' },
              suspended ? 'Reactivated.' : 'Suspended: their sessions have ended.',
            )
          }
        >
          {suspended ? 'Reactivate user' : 'Suspend user'}
        </button>
        <ConfirmButton
          label="Delete user…"
          question={`Delete ${user.email}? This cannot be undone.`}
          confirm="Yes, delete"
          onConfirm={async () => {
            try {
              await api.send('DELETE', path);
              navigate('/users');
            } catch (failure) {
              error.value = failure;
            }
          }}
        />
      </div>
      <p>
        <Link to="/users">Back to the users</Link>
      </p>
    </section>
  );
}

function UserForm(props: {
  draft: Signal<Draft>;
  roles: Role[];
  error: unknown;
  creating?: boolean;
  onSubmit: () => Promise<void>;
}) {
  const { draft, error } = props;
  const id = useId();
  const busy = useSignal(false);
  const set = (patch: Partial<Draft>) => {
    draft.value = { ...draft.value, ...patch };
  };
  const text = (name: 'email' | 'password' | 'first_name' | 'last_name', label: string, attributes = {}) => {
    const message = fieldError(error, name);
    return (
      <label>
        {label}
        <input
          name={name}
          value={draft.value[name]}
          onInput={(event) => set({ [name]: event.currentTarget.value })}
          {...attributes}
          {...invalidWhen(message, `${id}-${name}`)}
        />
        <FieldError id={`${id}-${name}`} message={message} />
      </label>
    );
  };
  const roleError = fieldError(error, 'role');
  const statusError = fieldError(error, 'status');
  return (
    <form
      class="record"
      onSubmit={async (event) => {
        event.preventDefault();
        busy.value = true;
        await props.onSubmit();
        busy.value = false;
      }}
    >
      {text('email', 'E-mail', { type: 'email', required: true, autocomplete: 'off' })}
      {text('password', props.creating ? 'Password' : 'New password (empty keeps the current one)', {
        type: 'password',
        autocomplete: 'new-password',
        required: props.creating,
      })}
      <label>
        Role
        <select
          name="role"
          value={draft.value.role}
          onChange={(event) => set({ role: event.currentTarget.value })}
          {...invalidWhen(roleError, `${id}-role`)}
        >
          <option value="">No role (the public permissions)</option>
          {props.roles.map((role) => (
            <option key={role.id} value={role.id}>
              {role.name}
            </option>
          ))}
        </select>
        <FieldError id={`${id}-role`} message={roleError} />
      </label>
      {text('first_name', 'First name')}
      {text('last_name', 'Last name')}
      <label>
        Status
        <select
          name="status"
          value={draft.value.status}
          onChange={(event) => set({ status: event.currentTarget.value as User['status'] })}
          {...invalidWhen(statusError, `${id}-status`)}
        >
          <option value="active">active</option>
          <option value="suspended">suspended</option>
        </select>
        <FieldError id={`${id}-status`} message={statusError} />
      </label>
      <FormError error={error} fields={FIELDS} />
      <div>
        <button type="submit" disabled={busy.value}>
          {props.creating ? 'Create user' : 'Save'}
        </button>
      </div>
    </form>
  );
}
