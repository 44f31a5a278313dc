import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { FieldShape } from '../api/capabilities.ts';
import { type FileRow, fileName, isPicture } from '../api/files.ts';
import { useStudio } from '../studio-context.ts';
import { describeError, ErrorNote } from './error-note.tsx';

/** The thumbnail's box, in CSS pixels; the server scales the picture down to fit it. */
const THUMBNAIL = 160;

/**
 * The file a field points at: its name and, for a picture, a thumbnail. The thumbnail is fetched with the
 * caller's token in the Authorization header and drawn on a canvas: an `<img>` cannot send that header,
 * and the `blob:` URL it would need is refused by the page's CSP (`default-src 'self'`), while decoding
 * the bytes with createImageBitmap needs no URL at all. So the token never enters a URL (a query token
 * would sit in the page, its history and any log that keeps query strings), and thumbnails work with
 * `auth.allowQueryToken` off.
 */
export function FileThumbnail(props: { id: string }) {
  const { api } = useStudio();
  const canvas = useRef<HTMLCanvasElement>(null);
  const file = useSignal<FileRow | null>(null);
  const drawn = useSignal(false);
  const failure = useSignal<unknown>(null);

  useEffect(() => {
    let current = true;
    file.value = null;
    drawn.value = false;
    failure.value = null;
    const show = async () => {
      const row = await api.get<FileRow>(`/files/${encodeURIComponent(props.id)}`);
      if (!current) return;
      file.value = row;
      if (!isPicture(row)) return;
      const bytes = await api.bytes(`/assets/${encodeURIComponent(props.id)}`, {
        width: THUMBNAIL,
        height: THUMBNAIL,
        fit: 'inside',
        withoutEnlargement: 'true',
      });
      const bitmap = await createImageBitmap(bytes);
      const target = canvas.current;
      if (current && target) {
        target.width = bitmap.width;
        target.height = bitmap.height;
        target.getContext('2d')?.drawImage(bitmap, 0, 0);
        drawn.value = true;
      }
      bitmap.close();
    };
    show().catch((error) => {
      if (current) failure.value = error;
    });
    return () => {
      current = false;
    };
  }, [props.id]);

  const name = file.value ? fileName(file.value) : props.id;
  return (
    <figure class="thumbnail">
      <canvas ref={canvas} hidden={!drawn.value} role="img" aria-label={`Thumbnail of ${name}`} />
      <figcaption>{failure.value === null ? name : `${name}: ${describeError(failure.value)}`}</figcaption>
    </figure>
  );
}

/**
 * Uploads a new file (`POST /files`) with its progress shown, then hands its id over for the field: the
 * item changes when it is saved, as for any other field.
 */
export function FileUpload(props: { field: FieldShape; onUploaded: (id: string) => void }) {
  const { api } = useStudio();
  const progress = useSignal<{ sent: number; total: number } | null>(null);
  const error = useSignal<unknown>(null);
  const done = useSignal<string | null>(null);
  const id = `upload-${props.field.name}`;

  const upload = async (input: HTMLInputElement) => {
    const chosen = input.files?.[0];
    if (!chosen) return;
    const form = new FormData();
    form.append('file', chosen, chosen.name);
    error.value = null;
    done.value = null;
    progress.value = { sent: 0, total: chosen.size };
    try {
      const file = await api.upload<FileRow>('/files', form, (sent, total) => {
        progress.value = { sent, total };
      });
      done.value = `Uploaded ${fileName(file)}. Save to keep it in ${props.field.name}.`;
      props.onUploaded(file.id);
    } catch (failure) {
      error.value = failure;
    } finally {
      progress.value = null;
      input.value = '';
    }
  };

  const current = progress.value;
  const percent = current && current.total > 0 ? Math.round((current.sent / current.total) * 100) : 0;
  return (
    <div class="upload">
      <label for={id}>Upload a new file for {props.field.name}</label>
      <input id={id} type="file" onChange={(event) => void upload(event.currentTarget)} />
      <div aria-live="polite">
        {current && (
          <label>
            Uploading… {percent}%
            <progress max={current.total} value={current.sent} />
          </label>
        )}
        {done.value && <p>{done.value}</p>}
      </div>
      {error.value !== null && <ErrorNote error={error.value} />}
    </div>
  );
}
