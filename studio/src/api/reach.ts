/** What a request that got no answer at all says: fetch's own "Failed to fetch" tells a person nothing. */
export const UNREACHABLE = 'The server could not be reached. Check the connection, then try again.';

/**
 * `fetch`, with a request that got no answer (the server down, the network gone) failing with UNREACHABLE.
 * fetch rejects with a TypeError then and only then; an abort is a DOMException and stays one.
 */
export async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (failure) {
    if (failure instanceof TypeError) throw new Error(UNREACHABLE, { cause: failure });
    throw failure;
  }
}
