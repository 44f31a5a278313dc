import { z } from 'zod';
import type { ApiContext, ApiPart } from './api-operation.ts';
import { componentNames } from './component-names.ts';
import { itemQueryParameters } from './item-query-parameters.ts';

/** What one event stream's body is: described once, written once under components. */
const eventStreamBody = z
  .string()
  .describe(
    'Server-Sent Events (docs/api.md §12): `init` (the rows as a list answers them), then `create`, `update`, `delete` with the JSON array of the changed items (of their keys for `delete`) as `data:` and the log position as `id:`; `: ping` comments; `resync` or `end` (`{"reason","message"}`) before the server closes the stream.',
  );

/**
 * The event stream of each collection the caller may read: `GET /items/:collection/events`, with a list's
 * `fields` and `filter` and the position to resume after.
 */
export function itemEventsApi({ description }: ApiContext): ApiPart {
  const names = componentNames(description.collections.map((collection) => collection.name));
  const list = itemQueryParameters(description.limits).list;
  const query = list.pick({ fields: true, filter: true }).extend({
    last_event_id: z
      .string()
      .describe(
        'Resume after this event id, for clients that cannot send the `Last-Event-ID` header (which wins).',
      )
      .optional(),
  });
  const part: ApiPart = { tags: [], operations: [] };
  for (const collection of description.collections) {
    if (!collection.actions.read || collection.keyHidden) continue;
    const { name } = collection;
    part.operations.push({
      method: 'get',
      path: `/items/${encodeURIComponent(name)}/events`,
      operationId: `${names.get(name)}_events`,
      tag: name,
      audience: 'anyone',
      summary: `Follow the changes of ${name}`,
      description:
        'The changes to the items you may see, as they commit, with only the fields you may read; `Last-Event-ID` resumes after a short disconnect (docs/api.md §12).',
      query,
      answers: [{ status: 200, description: 'The event stream.', body: eventStreamBody, form: 'events' }],
      errors: [400, 401, 403, 404, 429],
    });
  }
  return part;
}
