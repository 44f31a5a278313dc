import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useStudio } from '../studio-context.ts';
import { CellValue } from './cell-value.tsx';
import { ErrorNote } from './error-note.tsx';

/** An activity entry and a revision, in the fields of docs/api.md §14 the history shows. */
type Activity = { id: number; action: string; user: string | null; timestamp: string };
type Revision = { id: number; activity: number; delta: Record<string, unknown> | null };
type Entry = Activity & { revision: Revision | null };

/** The newest entries shown; older ones are rarely what someone restores from the editor. */
const SHOWN = 25;

/**
 * Who changed the item, when and what (`GET /activity` and `GET /revisions` of this item, newest first),
 * each revision with a button that puts the item back as it was then (`POST /utils/revert/:revision`).
 * The API shows a caller only the history of items, and the fields, it may read now.
 */
export function ItemHistory(props: {
  collection: string;
  item: string;
  /** Changes when the item was written, so the history is read again. */
  version: number;
  canRestore: boolean;
  onRestored: (revision: number) => void;
}) {
  const { api, capabilities } = useStudio();
  const entries = useSignal<Entry[] | null>(null);
  const emails = useSignal<ReadonlyMap<string, string>>(new Map());
  const error = useSignal<unknown>(null);
  const restoring = useSignal<number | null>(null);

  useEffect(() => {
    let current = true;
    const filter = JSON.stringify({ collection: { _eq: props.collection }, item: { _eq: props.item } });
    const query = { filter, sort: '-id', limit: SHOWN };
    Promise.all([
      api.get<Activity[]>('/activity', { ...query, fields: 'id,action,user,timestamp' }),
      api.get<Revision[]>('/revisions', { ...query, fields: 'id,activity,delta' }),
    ])
      .then(async ([activity, revisions]) => {
        const byActivity = new Map(revisions.map((revision) => [revision.activity, revision]));
        const loaded = activity.map((entry) => ({ ...entry, revision: byActivity.get(entry.id) ?? null }));
        if (!current) return;
        entries.value = loaded;
        error.value = null;
        // Only admins may read every user; others see ids, as the API gives them.
        const users = [...new Set(loaded.flatMap((entry) => (entry.user ? [entry.user] : [])))];
        if (capabilities.governs && users.length > 0) {
          const found = await api.get<{ id: string; email: string }[]>('/users', {
            filter: JSON.stringify({ id: { _in: users } }),
            fields: 'id,email',
            limit: users.length,
          });
          if (current) emails.value = new Map(found.map((user) => [user.id, user.email]));
        }
      })
      .catch((failure) => {
        if (current) error.value = failure;
      });
    return () => {
      current = false;
    };
  }, [props.collection, props.item, props.version]);

  const restore = async (revision: number) => {
    restoring.value = revision;
    try {
      await api.send('POST', `/utils/revert/${revision}`);
      error.value = null;
      props.onRestored(revision);
    } catch (failure) {
      error.value = failure;
    } finally {
      restoring.value = null;
    }
  };

  const list = entries.value;
  return (
    <section class="history" aria-labelledby="history-title">
      <h2 id="history-title">Activity and revisions</h2>
      {error.value !== null && <ErrorNote error={error.value} />}
      {list === null ? (
        error.value === null && <p aria-busy="true">Loading…</p>
      ) : list.length === 0 ? (
        <p>No recorded changes.</p>
      ) : (
        <ol class="history-list">
          {list.map((entry) => (
            <li key={entry.id}>
              <p class="history-head">
                <strong>{entry.action}</strong> by{' '}
                {entry.user ? (emails.value.get(entry.user) ?? entry.user) : 'the public or the command line'}{' '}
                at <time dateTime={entry.timestamp}>{when(entry.timestamp)}</time>
              </p>
              {entry.revision?.delta && (
                <dl class="delta" aria-label={`Fields written in revision ${entry.revision.id}`}>
                  {Object.entries(entry.revision.delta).map(([field, value]) => (
                    <div key={field}>
                      <dt>{field}</dt>
                      <dd>
                        <CellValue value={value} />
                      </dd>
                    </div>
                  ))}
                </dl>
              )}
              {entry.revision && props.canRestore && (
                <button
                  type="button"
                  disabled={restoring.value !== null}
                  onClick={() => void restore(entry.revision!.id)}
                  aria-label={`Restore revision ${entry.revision.id}, ${entry.action} at ${when(entry.timestamp)}`}
                >
                  Restore
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** A timestamp in UTC as people read it: `2026-11-26 09:40:12 UTC`. */
function when(timestamp: string): string {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime())
    ? timestamp
    : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
