import { parseHttpDate } from './http-date.ts';
import type { HttpContext } from './http-state.ts';

/** The validators of the representation a GET would answer. */
export type Validators = {
  /** A strong ETag, quoted. */
  readonly etag: string;
  readonly lastModified: Date | null;
};

const NO_CACHE = /(?:^|,)\s*no-cache\s*(?:,|$)/i;

/**
 * Whether a GET or HEAD is answered 304 Not Modified (RFC 9110 §13.2.2, steps 3 and 4). `If-None-Match`,
 * when sent, decides alone: a match (weak comparison, or `*`) is 304, anything else the whole answer.
 * Otherwise `If-Modified-Since` is 304 when the representation has not changed since, and is ignored
 * (§13.1.3) unless it is one valid HTTP-date no later than `now`: a date in the future would make every
 * later change look old, a list or a malformed date says nothing. As Koa's `ctx.fresh`, which this replaces
 * (it compared any text `Date.parse` takes, future dates included, and required both fields to match), an
 * end-to-end reload (`Cache-Control: no-cache`) asks for the whole answer.
 */
export function notModified(ctx: HttpContext, { etag, lastModified }: Validators, now: Date): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const { headers } = ctx.req;
  if (NO_CACHE.test(headers['cache-control'] ?? '')) return false;
  // Node joins repeated If-None-Match fields into one list, as RFC 9110 §5.3 allows.
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) return anyMatches(noneMatch, etag);
  if (lastModified === null) return false;
  const since = modifiedSince(ctx, now);
  // Last-Modified is sent in whole seconds.
  return since !== null && Math.floor(lastModified.getTime() / 1000) * 1000 <= since.getTime();
}

/** `*`, or a list of entity tags one of which equals `etag` once `W/` is set aside (weak comparison). */
function anyMatches(list: string, etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  return list.split(',').some((member) => {
    const tag = member.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}

/**
 * `If-Modified-Since` when it is one valid HTTP-date not later than `now`, else null. Node keeps only the
 * first of repeated fields in `headers`; `headersDistinct` has them all, and two are a list.
 */
function modifiedSince(ctx: HttpContext, now: Date): Date | null {
  const fields = ctx.req.headersDistinct['if-modified-since'];
  if (fields?.length !== 1) return null;
  const date = parseHttpDate(fields[0]!, now);
  return date !== null && date.getTime() <= now.getTime() ? date : null;
}
