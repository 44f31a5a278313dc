/**
 * Whether a cache may serve what it holds: only while every change made elsewhere reaches it (the change
 * feed is `live`). While the channel is lost, the caches read through and keep nothing.
 */
export type Coherence = { readonly live: boolean };

/** A process alone on its data (and the unit tests of one cache): nothing is made elsewhere. */
export const ALONE: Coherence = { live: true };
