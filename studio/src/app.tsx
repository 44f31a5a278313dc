import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { type Capabilities, loadCapabilities } from './api/capabilities.ts';
import type { Session } from './api/session.ts';
import { ErrorNote } from './components/error-note.tsx';
import { Link } from './components/link.tsx';
import { match, path } from './router.ts';
import { ROUTES } from './routes.tsx';
import { LoginScreen } from './screens/login-screen.tsx';
import { StudioContext } from './studio-context.ts';

const capabilities = signal<Capabilities | null>(null);
const loadError = signal<unknown>(null);
/** Bumped by "Try again" after the document failed to load, to ask for it again. */
const attempts = signal(0);

export function App(props: { session: Session }) {
  const { session } = props;
  const me = session.me.value;
  useEffect(() => {
    capabilities.value = null;
    loadError.value = null;
    if (!me) return;
    // An answer for the user logged in before (out since, and maybe another in) is theirs, not this one's.
    let current = true;
    loadCapabilities(session.api).then(
      (loaded) => {
        if (current) capabilities.value = loaded;
      },
      (error) => {
        if (current) loadError.value = error;
      },
    );
    return () => {
      current = false;
    };
  }, [me, attempts.value]);
  // A new screen takes the focus to its <main>: the link that led there is gone with the old one, and the
  // focus would fall to the page's top, saying nothing to a screen reader and sending Tab back to the nav.
  const shownPath = useRef(path.value);
  useEffect(() => {
    if (shownPath.current === path.value) return;
    shownPath.current = path.value;
    document.getElementById('main')?.focus();
  }, [path.value]);
  if (!me && session.resuming.value)
    return (
      <main class="login" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (!me) return <LoginScreen session={session} />;
  const loaded = capabilities.value;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <nav aria-label="Studio">
          <Link to="/" class="brand">
            datagate studio
          </Link>
          {ROUTES.filter((route) => route.nav && loaded && (route.when?.(loaded) ?? true)).map((route) => (
            <Link key={route.pattern} to={route.pattern}>
              {route.nav}
            </Link>
          ))}
          <a href="/docs">API docs</a>
        </nav>
        <div class="who">
          <span>{me.email}</span>
          <button type="button" onClick={() => void session.logout()}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {loadError.value !== null ? (
          <ErrorNote error={loadError.value} retry={() => attempts.value++} />
        ) : loaded === null ? (
          <p aria-busy="true">Loading…</p>
        ) : (
          <StudioContext.Provider value={{ api: session.api, capabilities: loaded, readOnly: false }}>
            <Screen capabilities={loaded} />
          </StudioContext.Provider>
        )}
      </main>
    </>
  );
}

function Screen(props: { capabilities: Capabilities }) {
  for (const route of ROUTES) {
    const params = match(route.pattern, path.value);
    if (params && (route.when?.(props.capabilities) ?? true)) {
      document.title = `${route.title} · datagate studio`;
      return route.render(params);
    }
  }
  document.title = 'Not found · datagate studio';
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is nothing here. <Link to="/">Back to the collections</Link>
      </p>
    </section>
  );
}
