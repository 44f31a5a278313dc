import { useSignal } from '@preact/signals';
import type { Session } from '../api/session.ts';
import { ErrorNote } from '../components/error-note.tsx';

export function LoginScreen(props: { session: Session }) {
  const email = useSignal('');
  const password = useSignal('');
  const error = useSignal<unknown>(null);
  const busy = useSignal(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    busy.value = true;
    error.value = null;
    try {
      await props.session.login(email.value, password.value);
    } catch (failure) {
      error.value = failure;
    } finally {
      busy.value = false;
    }
  };
  return (
    <main class="login">
      <h1>datagate studio</h1>
      {props.session.endedBecause.value && <p role="status">{props.session.endedBecause.value}</p>}
      <form onSubmit={submit}>
        <label>
          E-mail
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email.value}
            onInput={(event) => {
              email.value = event.currentTarget.value;
            }}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password.value}
            onInput={(event) => {
              password.value = event.currentTarget.value;
            }}
          />
        </label>
        {error.value !== null && <ErrorNote error={error.value} />}
        <button type="submit" disabled={busy.value}>
          Log in
        </button>
      </form>
    </main>
  );
}
