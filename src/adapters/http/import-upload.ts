import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { ImportFormat } from '../../application/ports/import-records.ts';
import { invalidPayload } from '../../domain/errors.ts';
import { HttpProblem } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';
import { watchPartHeaders } from './multipart-text.ts';
import { namesUtf8 } from './utf8-charset.ts';

/** The file of an import request and how to read it. */
export type ImportUpload = { readonly format: ImportFormat; readonly bytes: AsyncIterable<Uint8Array> };

// Maps, not object literals: a client's `constructor` or `__proto__` must find nothing, not the prototype's.
const FORMAT_OF_MEDIA_TYPE: ReadonlyMap<string, ImportFormat> = new Map([
  ['text/csv', 'csv'],
  ['application/csv', 'csv'],
  ['application/json', 'json'],
  ['application/x-ndjson', 'ndjson'],
  ['application/ndjson', 'ndjson'],
  ['application/jsonl', 'ndjson'],
  ['application/x-jsonlines', 'ndjson'],
]);

const FORMAT_OF_EXTENSION: ReadonlyMap<string, ImportFormat> = new Map([
  ['.csv', 'csv'],
  ['.json', 'json'],
  ['.ndjson', 'ndjson'],
  ['.jsonl', 'ndjson'],
]);

/** The fields and parts a multipart upload may have besides its file: Directus clients send none. */
const MULTIPART_LIMITS = { files: 1, fields: 16, fieldSize: 1024, parts: 17, headerPairs: 32 };

const unsupportedFormat = () =>
  new HttpProblem(
    'UNSUPPORTED_MEDIA_TYPE',
    'An import is CSV (text/csv), a JSON array (application/json) or NDJSON (application/x-ndjson), sent as the body or as the file of a multipart/form-data upload.',
  );

/**
 * The file is decoded as strict UTF-8 whatever it declares: a file declaring another charset would be
 * misread (its Latin-1 bytes refused as invalid UTF-8, or its UTF-8 bytes stored as other text than it
 * says it holds), so it is refused before it is read, as a JSON body is (docs/decisions/0070).
 */
function assertUtf8(charset: string | null): void {
  if (charset !== null && charset !== '' && !namesUtf8(charset)) {
    throw new HttpProblem(
      'UNSUPPORTED_MEDIA_TYPE',
      `The file declares charset "${charset.slice(0, 40)}": an import file is UTF-8 (send it so, with charset=utf-8 or no charset).`,
    );
  }
}

/**
 * The file of `POST /utils/import/:collection` (docs/api.md §13), not read yet: the request body itself,
 * its format named by `Content-Type`, or the first file of a `multipart/form-data` upload (Directus's form,
 * field `file`), its format named by the part's content type or else its file name's extension. Either way
 * the bytes are handed on as they arrive; `http.bodyLimit` does not apply, the import's own limits do.
 * Compressed bodies are not read (415).
 */
export async function importUpload(ctx: HttpContext): Promise<ImportUpload> {
  const encoding = ctx.get('Content-Encoding');
  if (encoding !== '' && encoding !== 'identity') throw unsupportedFormat();
  if (!hasBody(ctx))
    throw invalidPayload('An import needs a file: send it as the body or as a multipart upload.');
  if (ctx.request.is('multipart/form-data')) return multipartFile(ctx);
  // Koa's `type` is the header's text before any `;`, as sent: media types are case-insensitive.
  const format = FORMAT_OF_MEDIA_TYPE.get(ctx.request.type.trim().toLowerCase());
  if (!format) throw unsupportedFormat();
  assertUtf8(ctx.request.charset);
  return { format, bytes: uploaded(ctx.req) };
}

function multipartFile(ctx: HttpContext): Promise<ImportUpload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: MULTIPART_LIMITS });
    } catch {
      reject(invalidPayload('The multipart upload has no boundary.'));
      return;
    }
    const partHeader = watchPartHeaders(parser, () => {});
    let found = false;
    parser.on('file', (_name, stream, info) => {
      // A file cut short errors; one nobody reads must not make that an unhandled 'error' event.
      stream.on('error', () => {});
      if (found) {
        stream.resume();
        return;
      }
      found = true;
      const format =
        FORMAT_OF_MEDIA_TYPE.get(info.mimeType.toLowerCase()) ??
        FORMAT_OF_EXTENSION.get(extname(info.filename ?? '').toLowerCase());
      try {
        if (!format) throw unsupportedFormat();
        assertUtf8(partHeader().declaredCharset);
      } catch (error) {
        stream.resume();
        reject(error);
        return;
      }
      resolve({ format, bytes: uploaded(stream) });
    });
    parser.on('error', () => reject(invalidPayload('The multipart upload is malformed.')));
    parser.on('close', () => reject(invalidPayload('The multipart upload has no file.')));
    // A client that goes away fails the file being read, through the parser's destroy.
    ctx.req.on('error', (error) => parser.destroy(error));
    ctx.req.pipe(parser);
  });
}

/**
 * The upload's bytes; a stream that fails (a client that goes away, a multipart body cut short) is the
 * client's malformed upload, not a server error. The stream may fail before the import starts reading it
 * (while its transaction opens): the listener, added at once, keeps that failure from being an unhandled
 * 'error' event, which would end the process; the reading then meets it, as the stream keeps it.
 */
function uploaded(stream: Readable): AsyncIterable<Uint8Array> {
  stream.on('error', () => {});
  return (async function* () {
    try {
      yield* stream;
    } catch {
      throw invalidPayload('The upload ended before its file did.');
    }
  })();
}

function hasBody(ctx: HttpContext): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}
