import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/api-error.ts';
import type { CollectionShape, FieldShape } from '../api/capabilities.ts';
import { apiValueOf, changed, type Draft, draftOf } from '../api/field-values.ts';
import { FILES_COLLECTION } from '../api/files.ts';
import { ErrorNote } from '../components/error-note.tsx';
import { FieldInput } from '../components/field-input.tsx';
import { FileThumbnail, FileUpload } from '../components/file-field.tsx';
import { ItemHistory } from '../components/item-history.tsx';
import { Link } from '../components/link.tsx';
import { ReadableCollection } from '../components/readable-collection.tsx';
import { RelationPicker } from '../components/relation-picker.tsx';
import { navigate } from '../router.ts';
import { useStudio } from '../studio-context.ts';

type Row = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One item, to read and edit as far as the caller may: the fields its update (or create) permission lists
 * are inputs of their kind, the others are shown as read; only the fields changed are sent. `itemKey` is
 * null for a new item.
 */
export function ItemEditorScreen(props: { collection: string; itemKey: string | null }) {
  return (
    <ReadableCollection name={props.collection}>
      {(shape) => (
        <ItemEditor key={`${shape.name}/${props.itemKey ?? '+'}`} shape={shape} itemKey={props.itemKey} />
      )}
    </ReadableCollection>
  );
}

const idOf = (field: string) => `field-${field}`;

function ItemEditor(props: { shape: CollectionShape; itemKey: string | null }) {
  const { shape, itemKey } = props;
  const { api, capabilities, readOnly } = useStudio();
  const isNew = itemKey === null;
  const collectionPath = `/collections/${encodeURIComponent(shape.name)}`;
  const itemPath = `/items/${encodeURIComponent(shape.name)}/${encodeURIComponent(itemKey ?? '')}`;

  const item = useSignal<Row | null>(null);
  const loadError = useSignal<unknown>(null);
  /** What the inputs hold, and what they held when the item was loaded: a field is sent when they differ. */
  const drafts = useSignal<Record<string, Draft>>({});
  const loaded = useSignal<Record<string, Draft>>({});
  const fieldErrors = useSignal<Record<string, string>>({});
  const topError = useSignal<unknown>(null);
  const status = useSignal('');
  const saving = useSignal(false);
  /** Counts the writes, so the history is read again after each. */
  const version = useSignal(0);
  const confirmDelete = useRef<HTMLDialogElement>(null);
  const cancelDelete = useRef<HTMLButtonElement>(null);

  const mayWrite = !readOnly && (isNew ? shape.canCreate : shape.canUpdate);
  const editable = (field: FieldShape) =>
    mayWrite &&
    !field.setByServer &&
    (isNew
      ? shape.createFields.has(field.name)
      : shape.updateFields.has(field.name) && field.name !== shape.key);
  const readable = (field: FieldShape) => shape.fields.includes(field);
  const shown = [...shape.fields, ...shape.writeOnly].filter((field) => readable(field) || editable(field));

  const accept = (row: Row) => {
    item.value = row;
    const drafted = Object.fromEntries(shown.map((field) => [field.name, draftOf(field, row[field.name])]));
    drafts.value = drafted;
    loaded.value = drafted;
    fieldErrors.value = {};
  };
  const load = async () => {
    try {
      accept(await api.get<Row>(itemPath));
      loadError.value = null;
    } catch (failure) {
      loadError.value = failure;
    }
  };
  useEffect(() => {
    if (isNew) accept({});
    else void load();
  }, []);

  /** After the error is rendered, so that its description is read out with the field. */
  const focusField = (field: string) => setTimeout(() => document.getElementById(idOf(field))?.focus(), 0);
  const showError = (failure: unknown) => {
    const field = failure instanceof ApiError ? failure.field : undefined;
    if (failure instanceof ApiError && field && shown.some((candidate) => candidate.name === field)) {
      fieldErrors.value = { [field]: failure.message };
      if (editable(shown.find((candidate) => candidate.name === field)!)) focusField(field);
    } else {
      topError.value = failure;
    }
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const payload: Row = {};
    const problems: Record<string, string> = {};
    for (const field of shown.filter(editable)) {
      const draft = drafts.value[field.name]!;
      if (!changed(loaded.value[field.name], draft)) continue;
      const converted = apiValueOf(field, draft);
      if ('problem' in converted) problems[field.name] = converted.problem;
      else payload[field.name] = converted.value;
    }
    topError.value = null;
    fieldErrors.value = problems;
    const firstProblem = Object.keys(problems)[0];
    if (firstProblem !== undefined) {
      status.value = '';
      focusField(firstProblem);
      return;
    }
    if (!isNew && Object.keys(payload).length === 0) {
      status.value = 'Nothing to save: no field was changed.';
      return;
    }
    saving.value = true;
    status.value = 'Saving…';
    try {
      if (isNew) {
        const created = await api.send<Row>('POST', `/items/${encodeURIComponent(shape.name)}`, payload);
        const key = created && shape.key ? created[shape.key] : undefined;
        navigate(
          key === undefined || key === null
            ? collectionPath
            : `${collectionPath}/${encodeURIComponent(String(key))}`,
        );
        return;
      }
      const updated = await api.send<Row>('PATCH', itemPath, payload);
      if (updated) accept(updated);
      else await load();
      version.value++;
      status.value = 'Saved.';
    } catch (failure) {
      status.value = '';
      showError(failure);
    } finally {
      saving.value = false;
    }
  };

  const remove = async () => {
    confirmDelete.current?.close();
    try {
      await api.send('DELETE', itemPath);
      navigate(collectionPath);
    } catch (failure) {
      showError(failure);
    }
  };

  const restored = async (revision: number) => {
    await load();
    version.value++;
    status.value = `Restored revision ${revision}.`;
  };

  const title = isNew ? `New item in ${shape.name}` : `${shape.name}: ${itemKey}`;
  if (loadError.value !== null) {
    const missing = loadError.value instanceof ApiError && loadError.value.status === 404;
    return (
      <section>
        <p>
          <Link to={collectionPath}>Back to {shape.name}</Link>
        </p>
        <h1>{title}</h1>
        {missing ? (
          <p role="alert">There is no such item, or you may not read it.</p>
        ) : (
          <ErrorNote error={loadError.value} retry={() => void load()} />
        )}
      </section>
    );
  }
  if (isNew && !mayWrite) {
    return (
      <section>
        <h1>{title}</h1>
        <p role="alert">You may not create items in {shape.name}.</p>
      </section>
    );
  }
  const row = item.value;
  const anyEditable = shown.some(editable);
  const mayDelete = !isNew && !readOnly && shape.canDelete;
  const fields =
    row === null ? (
      <p aria-busy="true">Loading…</p>
    ) : (
      shown.map((field) =>
        editable(field) ? (
          <FieldInput
            key={field.name}
            field={field}
            id={idOf(field.name)}
            draft={drafts.value[field.name]!}
            loadedText={loaded.value[field.name]?.text ?? ''}
            error={fieldErrors.value[field.name]}
            note={readable(field) ? undefined : 'you may set it, not read it'}
            onChange={(draft) => {
              drafts.value = { ...drafts.value, [field.name]: draft };
            }}
          >
            <RelatedControls
              field={field}
              value={drafts.value[field.name]!}
              onPick={(value) => {
                drafts.value = { ...drafts.value, [field.name]: { text: value, isNull: false } };
              }}
            />
          </FieldInput>
        ) : (
          <ReadOnlyField
            key={field.name}
            field={field}
            value={row[field.name]}
            error={fieldErrors.value[field.name]}
          />
        ),
      )
    );

  return (
    <div class="editor-layout">
      <section class="editor" aria-labelledby="editor-title">
        <p>
          <Link to={collectionPath}>Back to {shape.name}</Link>
        </p>
        <h1 id="editor-title">{title}</h1>
        {topError.value !== null && <ErrorNote error={topError.value} />}
        <p role="status" class="status">
          {status.value}
        </p>
        {anyEditable ? (
          <form
            class="fields"
            aria-labelledby="editor-title"
            noValidate
            onSubmit={(event) => void save(event)}
          >
            {fields}
            <div class="actions">
              <button type="submit" class="primary" disabled={saving.value || row === null}>
                {isNew ? 'Create' : 'Save'}
              </button>
              {mayDelete && (
                <button type="button" class="danger" onClick={() => openDialog(confirmDelete, cancelDelete)}>
                  Delete
                </button>
              )}
            </div>
          </form>
        ) : (
          <div class="fields">
            {fields}
            {mayDelete && (
              <div class="actions">
                <button type="button" class="danger" onClick={() => openDialog(confirmDelete, cancelDelete)}>
                  Delete
                </button>
              </div>
            )}
          </div>
        )}
        {mayDelete && (
          <dialog ref={confirmDelete} aria-labelledby="delete-title" class="confirm">
            <h2 id="delete-title">Delete this item?</h2>
            <p>
              {shape.name} {itemKey} will be deleted for everyone. Its history stays, but it cannot be
              restored from here.
            </p>
            <div class="actions">
              <button type="button" class="danger" onClick={() => void remove()}>
                Yes, delete
              </button>
              <button ref={cancelDelete} type="button" onClick={() => confirmDelete.current?.close()}>
                Cancel
              </button>
            </div>
          </dialog>
        )}
      </section>
      {!isNew && capabilities.activity && capabilities.revisions && (
        <ItemHistory
          collection={shape.name}
          item={itemKey}
          version={version.value}
          canRestore={capabilities.revert && shape.canUpdate && !readOnly}
          onRestored={(revision) => void restored(revision)}
        />
      )}
    </div>
  );
}

/** A modal confirmation: Escape or Cancel closes it; the focus starts on Cancel, the harmless choice. */
function openDialog(
  dialog: { current: HTMLDialogElement | null },
  cancel: { current: HTMLButtonElement | null },
) {
  dialog.current?.showModal();
  cancel.current?.focus();
}

/** What a foreign key offers besides its input: the file it points at and an upload, or a picker. */
function RelatedControls(props: { field: FieldShape; value: Draft; onPick: (value: string) => void }) {
  const { capabilities } = useStudio();
  const { field, value } = props;
  if (!field.related) return null;
  const id = value.isNull ? '' : value.text.trim();
  return (
    <>
      {field.related.collection === FILES_COLLECTION && UUID.test(id) && <FileThumbnail id={id} />}
      {field.related.collection === FILES_COLLECTION && capabilities.uploads && (
        <FileUpload field={field} onUploaded={props.onPick} />
      )}
      <RelationPicker field={field} onPick={props.onPick} />
    </>
  );
}

/** A field the caller may read but not change here: its whole value, as text. */
function ReadOnlyField(props: { field: FieldShape; value: unknown; error: string | undefined }) {
  const { capabilities } = useStudio();
  const { field, value } = props;
  const related = field.related;
  const relatedShape = related && capabilities.collections.find((shape) => shape.name === related.collection);
  const text =
    value === null || value === undefined
      ? null
      : typeof value === 'object'
        ? JSON.stringify(value, null, 2)
        : String(value);
  return (
    <dl class="field readonly">
      <dt class="field-label">{field.name}</dt>
      <dd class="field-value">
        {text === null ? (
          <span class="muted">empty</span>
        ) : typeof value === 'object' ? (
          <pre>{text}</pre>
        ) : relatedShape && relatedShape.key === related.field ? (
          <Link to={`/collections/${encodeURIComponent(relatedShape.name)}/${encodeURIComponent(text)}`}>
            {text}
          </Link>
        ) : (
          text
        )}
        {related?.collection === FILES_COLLECTION && text !== null && UUID.test(text) && (
          <FileThumbnail id={text} />
        )}
        {/* Announced as it comes: the focus, which takes an input's own error to it, cannot go here. */}
        {props.error && (
          <p class="error field-error" role="alert">
            {props.error}
          </p>
        )}
      </dd>
    </dl>
  );
}
