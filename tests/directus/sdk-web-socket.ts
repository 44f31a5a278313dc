import { WebSocket } from 'ws';

/**
 * `ws`'s WebSocket as `@directus/sdk` needs it on Node 20, which has none of its own (README, "Directus
 * profile"): one message event per tick, as a browser dispatches them. `ws`'s client otherwise emits every
 * message of one network read in the same tick, and the SDK, which listens for one message at a time (its
 * subscription iterators and `onWebSocket('message')` alike), hears only the first of them.
 */
class OneMessagePerTick extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { allowSynchronousEvents: false });
  }
}

export const SDK_WEB_SOCKET = OneMessagePerTick as unknown as typeof globalThis.WebSocket;
