import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { FileUpload } from '../../application/files/file-upload.ts';
import { invalidPayload } from '../../domain/errors.ts';
import { unsupportedMediaType } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';
import {
  assertUtf8Filename,
  BYTES_AS_TEXT,
  fieldText,
  filenameText,
  shownName,
  watchPartHeaders,
} from './multipart-text.ts';

/** docs/api.md §15: the most files, fields and field bytes one upload may carry. */
export const MULTIPART_LIMITS = {
  files: 32,
  fields: 64,
  fieldSize: 64 * 1024,
  fieldNameSize: 100,
  parts: 96,
  headerPairs: 32,
} as const;

/**
 * The files of a `multipart/form-data` upload, Directus's form: fields first, then a file, the fields
 * applying to the file after them; more files may follow, each after its own fields. Each file is handed
 * on when its part begins, its bytes unread: busboy stops reading the request while a file's bytes wait
 * to be consumed, so an upload refused on its metadata is never read further. A field over its limit, too
 * many parts, fields after the last file, a malformed body and a client that goes away are the
 * client's INVALID_PAYLOAD, thrown by the iteration (or by the bytes of the file being read).
 */
export function multipartFiles(ctx: HttpContext): AsyncIterable<FileUpload> {
  // busboy reads the body as sent: a compressed one would be stored compressed, or one that only claims
  // to be compressed stored as is. An upload is never decompressed (no bomb to bound), so it is refused.
  const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw unsupportedMediaType('An upload is sent without Content-Encoding: send the file uncompressed.');
  }
  let parser: busboy.Busboy;
  try {
    // Names and values come as the UTF-8 bytes browsers send (HTML's multipart encoding), read by
    // multipart-text.ts: busboy's default latin1 turned "fötö.png" into "fÃ¶tÃ¶.png", and its UTF-8
    // decoding stored bytes that are not UTF-8 as U+FFFD.
    parser = busboy({ headers: ctx.req.headers, limits: MULTIPART_LIMITS, ...BYTES_AS_TEXT });
  } catch {
    throw invalidPayload('The multipart upload has no boundary.');
  }
  const ready: FileUpload[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake = () => {};
  const settle = (change: () => void) => {
    change();
    wake();
  };
  const fail = (error: Error) => settle(() => (failure ??= error));
  const partHeader = watchPartHeaders(parser, (header) => {
    try {
      assertUtf8Filename(header);
    } catch (error) {
      fail(error as Error);
    }
  });

  let fields: Record<string, string> = Object.create(null);
  let files = 0;
  parser.on('field', (name, value, info) => {
    if (info.nameTruncated || info.valueTruncated) {
      // A value over the limit names its field; a name over its own limit is not the field's whole name.
      const field = info.nameTruncated ? undefined : shownName(name);
      fail(
        invalidPayload(`Form field "${shownName(name)}" is over ${MULTIPART_LIMITS.fieldSize} bytes.`, field),
      );
      return;
    }
    try {
      const field = fieldText(name, value, partHeader());
      fields[field.name] = field.value;
    } catch (error) {
      fail(error as Error);
    }
  });
  parser.on('file', (_name, stream, info) => {
    // A file cut short errors; one nobody reads must not make that an unhandled 'error' event.
    stream.on('error', () => {});
    files++;
    let filename: string;
    try {
      filename = filenameText(info.filename, partHeader());
    } catch (error) {
      stream.resume();
      fail(error as Error);
      return;
    }
    const upload = {
      fields,
      filename,
      declaredType: info.mimeType,
      bytes: uploaded(stream),
    };
    fields = Object.create(null);
    settle(() => ready.push(upload));
  });
  const tooMany = () =>
    fail(
      invalidPayload(
        `An upload carries at most ${MULTIPART_LIMITS.files} files and ${MULTIPART_LIMITS.fields} fields.`,
      ),
    );
  parser.on('filesLimit', tooMany);
  parser.on('fieldsLimit', tooMany);
  parser.on('partsLimit', tooMany);
  parser.on('error', () => fail(invalidPayload('The multipart upload is malformed.')));
  parser.on('close', () => {
    if (Object.keys(fields).length > 0) {
      // Fields and no file at all is most often a form without its file part, not fields in the wrong place.
      fail(
        invalidPayload(
          files === 0
            ? 'The upload has no file: send it as a part after its fields (curl -F title=… -F file=@photo.jpg).'
            : 'Form fields after the last file belong to no file: send them before it.',
        ),
      );
      return;
    }
    settle(() => (ended = true));
  });
  // A client that goes away fails the file being read, through the parser's destroy.
  ctx.req.on('error', (error) => parser.destroy(error));
  ctx.req.on('close', () => {
    if (!ctx.req.complete) parser.destroy(new Error('The client went away.'));
  });
  ctx.req.pipe(parser);

  return (async function* () {
    for (;;) {
      if (failure) throw failure;
      const next = ready.shift();
      if (next) {
        yield next;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  })();
}

/** A file's bytes; a stream that fails (the client went away, the body was cut short) is the client's error. */
function uploaded(stream: Readable): AsyncIterable<Uint8Array> {
  return (async function* () {
    try {
      yield* stream;
    } catch {
      throw invalidPayload('The upload ended before its file did.');
    }
  })();
}
