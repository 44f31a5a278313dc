import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { FieldShape } from '../api/capabilities.ts';
import { FILES_COLLECTION } from '../api/files.ts';
import { useStudio } from '../studio-context.ts';
import { ErrorNote } from './error-note.tsx';

type Row = Record<string, unknown>;

/** How many related items a search shows: enough to pick from, few enough to read. */
const SHOWN = 10;

/**
 * What the picker lists of a related collection: the field the foreign key holds, and a readable label;
 * `fields` narrows the answer when the caller may read them all.
 */
type Listing = { path: string; valueField: string; labelField: string | null; fields?: string };

/**
 * Picks the item a foreign key points at: a button opens a search over the related collection (as the
 * caller may read it), each result a button that sets the field. Escape closes it and gives the focus back.
 */
export function RelationPicker(props: { field: FieldShape; onPick: (value: string) => void }) {
  const listing = useListing(props.field);
  const { api } = useStudio();
  const open = useSignal(false);
  const search = useSignal('');
  const rows = useSignal<Row[]>([]);
  const error = useSignal<unknown>(null);
  const loading = useSignal(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const panelId = `picker-${props.field.name}`;

  useEffect(() => {
    if (!open.value || !listing) return;
    let current = true;
    // Busy from the key on, not from the request: through the pause, the results shown are the last search's.
    loading.value = true;
    // A pause after the last key, so typing a word costs one request.
    const timer = setTimeout(() => {
      api
        .list<Row>(listing.path, {
          search: search.value.trim() || undefined,
          limit: SHOWN,
          fields: listing.fields,
        })
        .then(
          (page) => {
            if (!current) return;
            rows.value = page.rows;
            error.value = null;
          },
          (failure) => {
            if (current) error.value = failure;
          },
        )
        .finally(() => {
          if (current) loading.value = false;
        });
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [open.value, search.value]);

  useEffect(() => {
    if (open.value) searchBox.current?.focus();
  }, [open.value]);

  if (!listing) return null;
  const close = () => {
    open.value = false;
    toggle.current?.focus();
  };
  return (
    <div class="picker">
      <button
        ref={toggle}
        type="button"
        aria-expanded={open.value}
        aria-controls={panelId}
        onClick={() => {
          // Busy as it opens: its first search starts after the render, and "Nothing found." would show till then.
          if (!open.value) loading.value = true;
          open.value = !open.value;
        }}
      >
        Choose {props.field.name}…
      </button>
      {open.value && (
        // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the panel closes it.
        <div
          id={panelId}
          class="picker-panel"
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              close();
            }
          }}
        >
          <label>
            Search {props.field.related?.collection}
            <input
              ref={searchBox}
              type="search"
              value={search.value}
              onInput={(event) => {
                search.value = event.currentTarget.value;
              }}
              onKeyDown={(event) => {
                // Enter would submit the editor's form around the picker.
                if (event.key === 'Enter') event.preventDefault();
              }}
            />
          </label>
          {error.value !== null && <ErrorNote error={error.value} />}
          <ul
            class="picker-results"
            aria-busy={loading.value}
            aria-label={`${props.field.related?.collection} found`}
          >
            {rows.value.map((row) => {
              const value = String(row[listing.valueField]);
              const label = listing.labelField ? row[listing.labelField] : null;
              return (
                <li key={value}>
                  <button
                    type="button"
                    onClick={() => {
                      props.onPick(value);
                      close();
                    }}
                  >
                    {label === null || label === undefined || label === ''
                      ? value
                      : `${String(label)} (${value})`}
                  </button>
                </li>
              );
            })}
          </ul>
          {!loading.value && rows.value.length === 0 && <p>Nothing found.</p>}
        </div>
      )}
    </div>
  );
}

/** Where to list the related items from, or null when the caller cannot read the field they are picked by. */
function useListing(field: FieldShape): Listing | null {
  const { capabilities } = useStudio();
  const related = field.related;
  if (!related) return null;
  // Which of a file's fields the caller may read is not in the document: all it may read are asked for.
  if (related.collection === FILES_COLLECTION) {
    return { path: '/files', valueField: related.field, labelField: 'filename_download' };
  }
  const shape = capabilities.collections.find((candidate) => candidate.name === related.collection);
  if (!shape?.fields.some((candidate) => candidate.name === related.field)) return null;
  const label = shape.fields.find(
    (candidate) =>
      candidate.name !== related.field && (candidate.kind === 'text' || candidate.kind === 'enum'),
  );
  return {
    path: `/items/${encodeURIComponent(related.collection)}`,
    valueField: related.field,
    labelField: label?.name ?? null,
    fields: [related.field, label?.name].filter(Boolean).join(','),
  };
}
