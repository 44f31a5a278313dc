import type { HttpSettings } from '../http-settings.ts';
import type { JsonSchema, Response } from './openapi-types.ts';

/** How 2xx bodies look in the configured response profile (docs/api.md §1). */
export type ProfileShapes = {
  /** A 2xx JSON answer carrying `schema`. */
  ok(description: string, schema: JsonSchema): Response;
  /** A list answer, with the `meta` counts where the profile puts them. */
  list(description: string, item: JsonSchema): Response;
  /** What `expires` of a token pair means. */
  expires: string;
};

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const COUNT: JsonSchema = { type: 'integer', minimum: 0 };
const NEXT: JsonSchema = {
  type: ['string', 'null'],
  description: 'With `meta=next`: `after` for the next page; null after the last page.',
};

export function profileShapes(profile: HttpSettings['profile']): ProfileShapes {
  if (profile === 'directus') {
    const data = (schema: JsonSchema): JsonSchema => ({
      type: 'object',
      required: ['data'],
      properties: { data: schema },
    });
    return {
      ok: (description, schema) => ({ description, content: json(data(schema)) }),
      list: (description, item) => ({
        description,
        content: json({
          type: 'object',
          required: ['data'],
          properties: {
            data: { type: 'array', items: item },
            meta: {
              type: 'object',
              description: "What `meta` asked for: counts, estimates, the next page's cursor.",
              properties: {
                total_count: COUNT,
                filter_count: COUNT,
                estimated_total_count: COUNT,
                estimated_filter_count: COUNT,
                next: NEXT,
              },
            },
          },
        }),
      }),
      expires: "The access token's lifetime in milliseconds.",
    };
  }
  return {
    ok: (description, schema) => ({ description, content: json(schema) }),
    list: (description, item) => ({
      description,
      headers: {
        'X-Total-Count': { description: 'Rows visible to the caller, when `meta` asks.', schema: COUNT },
        'X-Filter-Count': { description: 'Rows matching the filter, when `meta` asks.', schema: COUNT },
        'X-Estimated-Total-Count': {
          description: "The planner's estimate of the visible rows, when `meta` asks.",
          schema: COUNT,
        },
        'X-Estimated-Filter-Count': {
          description: "The planner's estimate of the matching rows, when `meta` asks.",
          schema: COUNT,
        },
        'X-Next-Cursor': {
          description: 'With `meta=next`: `after` for the next page; absent after the last page.',
          schema: { type: 'string' },
        },
      },
      content: json({ type: 'array', items: item }),
    }),
    expires: 'Unix epoch milliseconds at which the access token expires.',
  };
}
