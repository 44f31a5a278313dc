import { EventSource, type FetchLike } from 'eventsource';
import type { TestApp } from './test-app.ts';

/** What an EventSource received, in order: the event's type, id and data. */
export type Received = { type: string; id: string; data: string };

const EVENT_TYPES = ['init', 'create', 'update', 'delete', 'resync', 'end'];

/** Polls until `condition` holds; the test's own timeout bounds the wait. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * A real EventSource on the stream, with the token as a header on every request and `firstLastEventId` as
 * Last-Event-ID on the first one only (as a client resuming from a position it stored would).
 */
export function follow(app: TestApp, path: string, token: string, firstLastEventId?: string) {
  const received: Received[] = [];
  const requests: Array<Record<string, string>> = [];
  const statuses: number[] = [];
  const authorizedFetch: FetchLike = async (url, init) => {
    const headers: Record<string, string> = { ...init.headers, Authorization: `Bearer ${token}` };
    if (requests.length === 0 && firstLastEventId !== undefined) headers['Last-Event-ID'] = firstLastEventId;
    requests.push(headers);
    const response = await fetch(url, { ...init, headers });
    statuses.push(response.status);
    return response;
  };
  const source = new EventSource(`${app.url}${path}`, { fetch: authorizedFetch });
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (event) => {
      received.push({ type, id: event.lastEventId, data: event.data });
    });
  }
  return { source, received, requests, statuses };
}
