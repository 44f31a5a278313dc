/** A resumable upload as the count of unfinished ones knows it. */
export type UnfinishedUpload = { readonly id: string; readonly owner: string; readonly createdAt: Date };

/** Whether an upload was counted in, or why not: the owner's oldest upload still counted. */
export type UploadOpening = { readonly opened: true } | { readonly opened: false; readonly oldest: Date };

/**
 * The unfinished resumable uploads of each user (docs/api.md §15), counted where every instance sees them
 * (the database), so that `storage.tus.maxUnfinished` holds however many instances a user's creations reach.
 */
export interface UnfinishedUploads {
  /**
   * Counts `upload` in unless its owner already has `max` uploads created after `since` (older ones have
   * expired, and count no more); two openings for one owner at once are counted one after the other.
   */
  open(upload: UnfinishedUpload, max: number, since: Date): Promise<UploadOpening>;
  /** The upload is finished, terminated or expired: it counts no more. */
  close(id: string): Promise<void>;
}
