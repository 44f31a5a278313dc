import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { CollectionShape, RealtimeFlag } from '../api/capabilities.ts';
import type { Page, Query } from '../api/client.ts';
import { CellValue } from '../components/cell-value.tsx';
import { ErrorNote } from '../components/error-note.tsx';
import { type Condition, FilterBuilder, filterOf } from '../components/filter-builder.tsx';
import { Link } from '../components/link.tsx';
import { LiveStatus, useLiveTable } from '../components/live-table.tsx';
import { ReadableCollection } from '../components/readable-collection.tsx';
import { moveBetweenRows } from '../components/row-navigation.ts';
import { useStudio } from '../studio-context.ts';

type Row = Record<string, unknown>;

const PAGE_SIZES = [25, 50, 100, 250];

/** What the table asks for; a change of any of it starts again from the first page. */
type Request = { sort: string | null; filter: string | undefined; search: string; limit: number };

/**
 * A collection's rows, as many as fit a page, with the readable fields as columns. Pages are keyset pages
 * (`meta=next`, `after`): page 5,000 of a million rows costs what page 1 does. The count is the database's
 * estimate, which costs nothing (under a row rule the server counts exactly instead, docs/decisions/0056);
 * the exact one is asked for only on request, since it reads every row.
 */
export function ItemTableScreen(props: { collection: string }) {
  const { api, capabilities, readOnly } = useStudio();
  return (
    <ReadableCollection name={props.collection}>
      {(shape) => (
        <ItemTable
          key={shape.name}
          shape={shape}
          api={api}
          realtime={capabilities.realtime}
          readOnly={readOnly}
        />
      )}
    </ReadableCollection>
  );
}

function ItemTable(props: {
  shape: CollectionShape;
  api: ReturnType<typeof useStudio>['api'];
  realtime: RealtimeFlag;
  readOnly: boolean;
}) {
  const { shape, api } = props;
  const request = useSignal<Request>({ sort: null, filter: undefined, search: '', limit: PAGE_SIZES[0]! });
  /** The cursors of the pages before this one, to go back; the first page's is null. */
  const trail = useSignal<(string | null)[]>([]);
  const after = useSignal<string | null>(null);
  const page = useSignal<Page<Row> | null>(null);
  const exact = useSignal<number | null>(null);
  const error = useSignal<unknown>(null);
  // Busy from the first render: the effect that loads the first page runs after it, and a table not busy with
  // no rows would read as an empty collection.
  const loading = useSignal(true);
  const draft = useSignal<Condition[]>([]);
  const searchText = useSignal('');
  const reloads = useSignal(0);
  /** Set by the pager: once the page has loaded, focus goes to the table, whose caption names the page. */
  const focusTable = useRef(false);
  const table = useRef<HTMLTableElement>(null);

  const query = (extra: Query): Query => ({
    sort: request.value.sort ?? undefined,
    filter: request.value.filter,
    search: request.value.search || undefined,
    ...extra,
  });

  useEffect(() => {
    let current = true;
    loading.value = true;
    api
      .list<Row>(
        `/items/${encodeURIComponent(shape.name)}`,
        query({
          limit: request.value.limit,
          meta: 'next,estimated_filter_count',
          after: after.value ?? undefined,
        }),
      )
      .then(
        (answer) => {
          if (!current) return;
          page.value = answer;
          error.value = null;
        },
        (failure) => {
          if (!current) return;
          // The rows and count shown were another request's answer: under this one's error they would
          // read as its answer.
          page.value = null;
          error.value = failure;
        },
      )
      .finally(() => {
        if (!current) return;
        loading.value = false;
        if (focusTable.current) table.current?.focus();
        focusTable.current = false;
      });
    return () => {
      current = false;
    };
  }, [request.value, after.value, reloads.value]);
  const live = useLiveTable({
    api,
    realtime: props.realtime,
    shape,
    request,
    after,
    page,
    loading,
    exact,
    reload: () => {
      reloads.value += 1;
    },
  });

  const restart = (patch: Partial<Request>) => {
    // Busy from the change on, not from the effect after the next render: nobody (a test, a screen reader)
    // may read the old rows as the answer to the new request.
    loading.value = true;
    request.value = { ...request.value, ...patch };
    trail.value = [];
    after.value = null;
    exact.value = null;
  };
  const sortBy = (field: string) => {
    const sort = request.value.sort;
    restart({ sort: sort === field ? `-${field}` : sort === `-${field}` ? null : field });
  };
  const countExactly = async () => {
    try {
      const answer = await api.list<Row>(
        `/items/${encodeURIComponent(shape.name)}`,
        query({
          limit: 1,
          fields: shape.key ?? shape.fields[0]?.name,
          meta: 'filter_count',
        }),
      );
      exact.value = answer.filterCount ?? null;
    } catch (failure) {
      error.value = failure;
    }
  };

  const rows = page.value?.rows ?? [];
  const estimate = page.value?.estimatedFilterCount;
  return (
    <section aria-labelledby="table-title">
      <header class="table-header">
        <h1 id="table-title">{shape.name}</h1>
        {shape.canCreate && !props.readOnly && shape.key && (
          <Link class="button" to={`/collections/${encodeURIComponent(shape.name)}/+`}>
            New item
          </Link>
        )}
      </header>
      <div class="toolbar">
        <search>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              restart({ search: searchText.value.trim() });
            }}
          >
            <label>
              Search
              <input
                type="search"
                value={searchText.value}
                onInput={(event) => {
                  searchText.value = event.currentTarget.value;
                }}
              />
            </label>
            <button type="submit">Search</button>
          </form>
        </search>
        <label>
          Rows per page
          <select
            value={String(request.value.limit)}
            onChange={(event) => restart({ limit: Number(event.currentTarget.value) })}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
      <FilterBuilder
        fields={shape.fields}
        draft={draft}
        onApply={(conditions) => restart({ filter: filterOf(conditions, shape.fields) })}
      />
      <p class="count" aria-live="polite">
        {exact.value !== null
          ? rowCount(exact.value)
          : estimate !== undefined
            ? `about ${rowCount(estimate)}`
            : ''}{' '}
        {exact.value === null && (
          <button type="button" class="link" onClick={countExactly}>
            Count exactly
          </button>
        )}
      </p>
      <LiveStatus live={live} />
      {error.value !== null && (
        <ErrorNote
          error={error.value}
          retry={() => {
            loading.value = true;
            reloads.value += 1;
          }}
        />
      )}
      <div class="table-wrap">
        <table aria-busy={loading.value} tabIndex={-1} ref={table}>
          <caption class="visually-hidden">
            {shape.name}, page {trail.value.length + 1}
          </caption>
          <thead>
            <tr>
              {shape.fields.map((field) => {
                const sort = request.value.sort;
                const direction =
                  sort === field.name ? 'ascending' : sort === `-${field.name}` ? 'descending' : 'none';
                return (
                  <th key={field.name} scope="col" aria-sort={direction}>
                    {field.kind === 'json' ? (
                      field.name
                    ) : (
                      <button type="button" class="sort" onClick={() => sortBy(field.name)}>
                        {field.name}
                        <span aria-hidden="true">
                          {direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''}
                        </span>
                      </button>
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody onKeyDown={moveBetweenRows}>
            {rows.map((row, index) => {
              const key = shape.key ? row[shape.key] : undefined;
              return (
                <tr key={key === undefined ? index : String(key)}>
                  {shape.fields.map((field) => (
                    <td key={field.name}>
                      {field.name === shape.key && key !== null && key !== undefined ? (
                        <Link
                          to={`/collections/${encodeURIComponent(shape.name)}/${encodeURIComponent(String(key))}`}
                        >
                          <CellValue value={row[field.name]} />
                        </Link>
                      ) : (
                        <CellValue value={row[field.name]} />
                      )}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
        {!loading.value && rows.length === 0 && error.value === null && <p>No rows.</p>}
      </div>
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          disabled={trail.value.length === 0}
          onClick={() => {
            focusTable.current = true;
            loading.value = true;
            after.value = trail.value.at(-1) ?? null;
            trail.value = trail.value.slice(0, -1);
          }}
        >
          Previous page
        </button>
        <span>Page {trail.value.length + 1}</span>
        <button
          type="button"
          disabled={!page.value?.next}
          onClick={() => {
            focusTable.current = true;
            trail.value = [...trail.value, after.value];
            loading.value = true;
            after.value = page.value?.next ?? null;
          }}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}

/** `1 row`, `0 rows`, `1,000 rows`. */
function rowCount(count: number): string {
  return `${count.toLocaleString('en')} ${count === 1 ? 'row' : 'rows'}`;
}
