import { type ZodType, z } from 'zod';
import type { HttpSettings } from '../http-settings.ts';
import type { Answer } from './api-operation.ts';

export type Header = { description: string; schema: ZodType };

/** An answer's body and headers as the response profile sends them. */
export type ShapedAnswer = { body: ZodType; headers?: Record<string, Header> };

const count = z.int().min(0);

/**
 * How 2xx bodies look in the configured response profile (docs/api.md §1, respond.ts): the directus
 * profile wraps them in `data` and puts list counts in `meta`; the plain one sends them as they are,
 * with the counts in headers. Other answers (errors, a 503 health report) are never wrapped.
 */
export function shapedAnswer(
  profile: HttpSettings['profile'],
  { status, form = 'data' }: Answer,
  body: ZodType,
): ShapedAnswer {
  if (form === 'bare' || form === 'text' || form === 'events' || form === 'binary' || status >= 300)
    return { body };
  // The same wrapper for the same body, so that its written schema is found again (document-schemas.ts).
  const key = `${profile} ${form}`;
  const shapes = SHAPED.get(body) ?? new Map<string, ShapedAnswer>();
  SHAPED.set(body, shapes);
  let shaped = shapes.get(key);
  if (!shaped) {
    shaped = wrapped(profile, form, body);
    shapes.set(key, shaped);
  }
  return shaped;
}

const SHAPED = new WeakMap<ZodType, Map<string, ShapedAnswer>>();

function wrapped(profile: HttpSettings['profile'], form: 'data' | 'list', body: ZodType): ShapedAnswer {
  if (form === 'data') return { body: profile === 'directus' ? z.object({ data: body }) : body };
  if (profile === 'directus') {
    return {
      body: z.object({
        data: z.array(body),
        meta: z
          .object({
            total_count: count.optional(),
            filter_count: count.optional(),
            estimated_total_count: count.optional(),
            estimated_filter_count: count.optional(),
            next: z
              .string()
              .nullable()
              .describe('With `meta=next`: `after` for the next page; null after the last page.')
              .optional(),
          })
          .describe("What `meta` asked for: counts, estimates, the next page's cursor.")
          .optional(),
      }),
    };
  }
  return {
    body: z.array(body),
    headers: {
      'X-Total-Count': { description: 'Rows visible to the caller, when `meta` asks.', schema: count },
      'X-Filter-Count': { description: 'Rows matching the filter, when `meta` asks.', schema: count },
      'X-Estimated-Total-Count': {
        description: "The planner's estimate of the visible rows, when `meta` asks.",
        schema: count,
      },
      'X-Estimated-Filter-Count': {
        description: "The planner's estimate of the matching rows, when `meta` asks.",
        schema: count,
      },
      'X-Next-Cursor': {
        description: 'With `meta=next`: `after` for the next page; absent after the last page.',
        schema: z.string(),
      },
    },
  };
}
