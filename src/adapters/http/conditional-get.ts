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
  return since !== null && wholeSeconds(lastModified) <= since.getTime();
}

/**
 * Whether a GET or HEAD is answered 412 Precondition Failed (RFC 9110 §13.2.2, steps 1 and 2), which is
 * decided before anything else, 304 included. `If-Match`, when sent, decides alone: `*` holds (the file
 * exists), and so does a list naming `etag` by strong comparison — a `W/` tag never matches (§8.8.3.2).
 * Otherwise `If-Unmodified-Since` fails when the representation changed after it, and is ignored
 * (§13.1.4) unless it is one valid HTTP-date, or when there is no Last-Modified to compare.
 */
export function preconditionFailed(ctx: HttpContext, { etag, lastModified }: Validators, now: Date): boolean {
  const { headers } = ctx.req;
  // Node joins repeated If-Match fields into one list, as RFC 9110 §5.3 allows.
  const match = headers['if-match'];
  if (match !== undefined) return !anyMatches(match, etag, 'strong');
  if (lastModified === null) return false;
  const since = oneHttpDate(ctx, 'if-unmodified-since', now);
  return since !== null && wholeSeconds(lastModified) > since.getTime();
}

/**
 * `*`, or a list of entity tags one of which equals `etag`: once `W/` is set aside (weak comparison), or
 * only when neither is weak (strong comparison, RFC 9110 §8.8.3.2).
 */
function anyMatches(list: string, etag: string, comparison: 'weak' | 'strong' = 'weak'): boolean {
  const opaque = etag.replace(/^W\//, '');
  return list.split(',').some((member) => {
    const tag = member.trim();
    if (tag === '*') return true;
    if (comparison === 'strong') return tag === etag && !etag.startsWith('W/');
    return tag.replace(/^W\//, '') === opaque;
  });
}

/** `If-Modified-Since` when it is one valid HTTP-date not later than `now`, else null. */
function modifiedSince(ctx: HttpContext, now: Date): Date | null {
  const date = oneHttpDate(ctx, 'if-modified-since', now);
  return date !== null && date.getTime() <= now.getTime() ? date : null;
}

/**
 * The field when it is one valid HTTP-date, else null. Node keeps only the first of repeated date fields in
 * `headers`; `headersDistinct` has them all, and two are a list.
 */
function oneHttpDate(
  ctx: HttpContext,
  name: 'if-modified-since' | 'if-unmodified-since',
  now: Date,
): Date | null {
  const fields = ctx.req.headersDistinct[name];
  if (fields?.length !== 1) return null;
  return parseHttpDate(fields[0]!, now);
}

/** Last-Modified is sent in whole seconds, and compared as sent. */
function wholeSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000) * 1000;
}
