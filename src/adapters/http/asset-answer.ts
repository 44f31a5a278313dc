import { Readable } from 'node:stream';
import type { Asset } from '../../application/files/read-asset.ts';
import { byteRangeOf } from './byte-range.ts';
import { HttpProblem } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';

/** `storage.inlineTypes`: the media types (or `type/*` families) shown in the browser rather than saved. */
export type InlineTypes = ReadonlyArray<string>;

function isInline(type: string, inline: InlineTypes): boolean {
  const family = `${type.split('/')[0]}/*`;
  return inline.some((entry) => entry === type || entry === family);
}

/**
 * A file's bytes as the answer to GET or HEAD /assets/:id (docs/api.md §15): user content, so sandboxed
 * (`Content-Security-Policy: sandbox`, `nosniff`) and inline only for the allowed types or unless
 * `download` is asked; the checksum as a strong ETag, the last change as Last-Modified, a matching
 * conditional request 304; one byte range 206, an unsatisfiable one 416, anything else the whole file.
 * The bytes stream from the store as the client takes them.
 */
export async function sendAsset(ctx: HttpContext, asset: Asset, inline: InlineTypes): Promise<void> {
  const download = ctx.query.download !== undefined || !isInline(asset.type, inline);
  ctx.set('Content-Security-Policy', 'sandbox');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Koa's attachment() encodes the name as RFC 6266 and 5987 say (the content-disposition package), so
  // quotes, CR/LF and non-ASCII cannot break out of the header; it also guesses a type from the name,
  // which the file's own type then replaces.
  ctx.attachment(asset.filename, { type: download ? 'attachment' : 'inline' });
  ctx.set('Content-Type', asset.type);
  ctx.set('ETag', `"${asset.checksum}"`);
  if (asset.modifiedAt) ctx.set('Last-Modified', asset.modifiedAt.toUTCString());
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.status = 200;
  if (ctx.fresh) {
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

/** A `Range` counts only while `If-Range` (when sent) still names this version of the file. */
function rangeAsked(ctx: HttpContext, asset: Asset) {
  const ifRange = ctx.get('If-Range');
  if (ifRange !== '' && ifRange !== `"${asset.checksum}"`) return 'whole';
  return byteRangeOf(ctx.get('Range') || undefined, asset.size);
}
