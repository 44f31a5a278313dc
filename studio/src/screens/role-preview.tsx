import { useSignal } from '@preact/signals';
import type { VNode } from 'preact';
import { useEffect } from 'preact/hooks';
import { type Capabilities, loadCapabilities } from '../api/capabilities.ts';
import { RolePreviewToken } from '../api/role-preview-token.ts';
import { PUBLIC_ROLE, type Role } from '../api/system-records.ts';
import { FormError } from '../components/form-errors.tsx';
import { Link, LinkScope } from '../components/link.tsx';
import { useAnswer } from '../components/use-answer.ts';
import { StudioContext, type StudioView, useStudio } from '../studio-context.ts';

/**
 * The studio as a role's users see it (docs/decisions/0044): the same screens, given a client that
 * carries a preview token of the role and the capabilities read with it, read-only, under a banner.
 * The token lives in this screen only: leaving the preview or logging out drops it.
 */
export function RolePreview(props: {
  /** A role's id, or `public`. */
  role: string;
  /** The screen's path inside the preview. */
  path: string;
  screenAt: (path: string, capabilities: Capabilities) => VNode | null;
}) {
  const { api } = useStudio();
  const view = useSignal<StudioView | null>(null);
  const error = useSignal<unknown>(null);
  const name = useAnswer(
    () =>
      props.role === PUBLIC_ROLE
        ? Promise.resolve('Public')
        : api
            .get<Role>(`/roles/${encodeURIComponent(props.role)}`, { fields: 'name' })
            .then((role) => role.name),
    [props.role],
  );
  useEffect(() => {
    let current = true;
    const preview = new RolePreviewToken(api, props.role);
    view.value = null;
    error.value = null;
    preview
      .start()
      .then(() => loadCapabilities(preview.api))
      .then(
        (capabilities) => {
          if (current) view.value = { api: preview.api, capabilities, readOnly: true };
        },
        (failure) => {
          if (current) error.value = failure;
        },
      );
    return () => {
      current = false;
      preview.drop();
    };
  }, [props.role]);

  const roleName = name.value ?? '…';
  const loaded = view.value;
  const screen = loaded && props.screenAt(props.path, loaded.capabilities);
  return (
    <>
      <section class="preview-banner" aria-label="Role preview">
        <p>
          <strong>Viewing as {roleName} — read-only.</strong> Collections, rows and fields are those{' '}
          {roleName}'s users see; nothing can be changed here.
        </p>
        <nav aria-label="Preview">
          <Link to={`/preview/${props.role}`}>Collections as {roleName}</Link>
          <Link class="button" to={`/roles/${props.role}`}>
            Stop viewing as {roleName}
          </Link>
        </nav>
      </section>
      {error.value !== null ? (
        <FormError error={error.value} />
      ) : !loaded ? (
        <p aria-busy="true">Loading the view of {roleName}…</p>
      ) : (
        <StudioContext.Provider value={loaded}>
          <LinkScope.Provider value={`/preview/${props.role}`}>
            {screen ?? (
              <section>
                <h1>Not found</h1>
                <p>{roleName} has no screen here.</p>
              </section>
            )}
          </LinkScope.Provider>
        </StudioContext.Provider>
      )}
    </>
  );
}
