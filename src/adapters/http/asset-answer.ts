import { Readable } from 'node:stream';
import type { ImageVariant } from '../../application/files/image-variants.ts';
import type { Asset } from '../../application/files/read-asset.ts';
import type { ByteRange } from '../../application/ports/file-storage.ts';
import { byteRangeOf } from './byte-range.ts';
import { notModified, preconditionFailed } from './conditional-get.ts';
import { HttpProblem } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';
import { singleParameter } from './item-query-string.ts';

/** `storage.inlineTypes`: the media types (or `type/*` families) shown in the browser rather than saved. */
export type InlineTypes = ReadonlyArray<string>;

/** What `/assets/:id` answers with: the file's own bytes, or an image variant of them. */
export type ServedAsset = {
  readonly filename: string;
  readonly type: string;
  /** In bytes. */
  readonly size: number;
  /** A strong ETag, quoted. */
  readonly etag: string;
  readonly modifiedAt: Date | null;
  /** The bytes depend on the request's `Accept` (`format=auto`), which `Vary` then names. */
  readonly variesWithAccept: boolean;
  /** The bytes, or the range of them (which must lie within them). */
  open(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
};

/**
 * The file, or the variant of it its transform parameters asked for: the variant's own type, size and
 * ETag, under the file's name with the variant's extension (a WebP thumbnail of `photo.png` downloads as
 * `photo.webp`), last modified when the file's bytes were.
 */
export function servedAsset(asset: Asset, variant: ImageVariant | undefined): ServedAsset {
  if (!variant) return { ...asset, etag: `"${asset.checksum}"`, variesWithAccept: false };
  return {
    filename: withExtensionOf(asset.filename, variant.type),
    type: variant.type,
    size: variant.size,
    etag: variant.etag,
    modifiedAt: asset.modifiedAt,
    variesWithAccept: variant.variesWithAccept,
    open: (range) => variant.read(range),
  };
}

/**
 * `image/webp` names its files `.webp`; a name without an extension gets one. A name whose extension already
 * names the variant's format keeps it as written: a JPEG thumbnail of `photo.JPG` stays `photo.JPG`.
 */
function withExtensionOf(filename: string, type: string): string {
  const format = type.slice(type.indexOf('/') + 1);
  const extension = /\.([^./\\]*)$/.exec(filename)?.[1];
  if (extension !== undefined && (EXTENSIONS_OF[format] ?? [format]).includes(extension.toLowerCase())) {
    return filename;
  }
  const stem = extension === undefined ? filename : filename.slice(0, -extension.length - 1);
  return `${stem}.${format}`;
}

/** The extensions a format's files are commonly named with, where there are several. */
const EXTENSIONS_OF: Readonly<Record<string, readonly string[]>> = {
  jpeg: ['jpeg', 'jpg', 'jpe', 'jfif'],
  tiff: ['tiff', 'tif'],
};

function isInline(type: string, inline: InlineTypes): boolean {
  const family = `${type.split('/')[0]}/*`;
  return inline.some((entry) => entry === type || entry === family);
}

/**
 * A file's bytes, or a variant's, as the answer to GET or HEAD /assets/:id (docs/api.md §15): user
 * content, so sandboxed (`Content-Security-Policy: sandbox`, `nosniff`) and inline only for the allowed
 * types or unless `download` is asked; a strong ETag, the last change as Last-Modified, a failed
 * precondition (`If-Match`, `If-Unmodified-Since`) 412, a matching conditional request 304 (`now` judges
 * the dates); one byte range 206, an unsatisfiable one 416, anything else the whole file. The bytes stream from the store as the client takes them.
 */
export async function sendAsset(
  ctx: HttpContext,
  asset: ServedAsset,
  inline: InlineTypes,
  now: Date,
): Promise<void> {
  const validators = { etag: asset.etag, lastModified: asset.modifiedAt };
  if (preconditionFailed(ctx, validators, now)) {
    throw new HttpProblem(
      'PRECONDITION_FAILED',
      'The file is not the one If-Match or If-Unmodified-Since names: it has changed since.',
    );
  }
  const download = singleParameter(ctx, 'download') !== undefined || !isInline(asset.type, inline);
  ctx.set('Content-Security-Policy', 'sandbox');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Koa's attachment() encodes the name as RFC 6266 and 5987 say (the content-disposition package), so
  // quotes, CR/LF and non-ASCII cannot break out of the header; it also guesses a type from the name,
  // which the file's own type then replaces.
  ctx.attachment(asset.filename, { type: download ? 'attachment' : 'inline' });
  ctx.set('Content-Type', asset.type);
  ctx.set('ETag', asset.etag);
  if (asset.variesWithAccept) ctx.vary('Accept');
  if (asset.modifiedAt) ctx.set('Last-Modified', asset.modifiedAt.toUTCString());
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.status = 200;
  if (notModified(ctx, validators, now)) {
    ctx.status = 304;
    return;
  }
  const range = rangeAsked(ctx, asset);
  if (range === 'unsatisfiable') {
    throw new HttpProblem('RANGE_NOT_SATISFIABLE', 'The range asked for lies outside the file.', {
      'Content-Range': `bytes */${asset.size}`,
    });
  }
  const length = range === 'whole' ? asset.size : range.end - range.start + 1;
  if (range !== 'whole') {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${asset.size}`);
  }
  if (ctx.method !== 'HEAD') {
    ctx.body = Readable.from(await asset.open(range === 'whole' ? undefined : range), { objectMode: false });
  }
  // After the body: Koa drops the length a stream body is given.
  ctx.length = length;
}

/**
 * A `Range` counts only while `If-Range` (when sent) still names these bytes: their ETag, compared strongly
 * (RFC 9110 §13.1.5). An HTTP-date never does: a file's bytes can change twice within the second a
 * Last-Modified names, so the date is a weak validator here, which If-Range may not match (§8.8.2.2).
 */
function rangeAsked(ctx: HttpContext, asset: ServedAsset) {
  const ifRange = ctx.get('If-Range');
  if (ifRange !== '' && ifRange !== asset.etag) return 'whole';
  return byteRangeOf(ctx.get('Range') || undefined, asset.size);
}
