/** What a store holds under one key. */
export type StoredObject = {
  readonly key: string;
  /** In bytes. */
  readonly size: number;
  readonly modifiedAt: Date;
};

/** Bytes a store holds under no key (a large object no key points at), named as the store names them. */
export type UnreferencedBytes = {
  readonly name: string;
  /** In bytes. */
  readonly size: number;
};

/** Bytes `start` to `end` of an object, both included and 0-based, as an HTTP `Range` names them. */
export type ByteRange = { readonly start: number; readonly end: number };

/**
 * Where files' bytes live: a flat space of keys (`files/<id>`, `tmp/<uuid>`, …), on a local disk, in
 * PostgreSQL's large objects or in S3. Bytes go in and out as streams, never whole, so memory stays
 * bounded whatever a file's size.
 *
 * A key is made by the server, never taken from a request: segments of ASCII letters, digits, `_`, `-`
 * and `.` joined by `/`, none empty nor starting with a dot, at most 1,024 characters. Any other key is a
 * bug, and every method refuses it (rejects). Keys sort as their bytes do (`a-b` < `a.b` < `a/c` < `ab`).
 * A key is never also the folder of other keys (`a` beside `a/b`): a local disk cannot hold both.
 */
export interface FileStorage {
  /**
   * Stores the bytes under `key`, replacing what was there, and resolves once they are durable; a
   * reader sees the old bytes or the new, never a mix. When iterating `bytes` throws (a client that
   * aborts, an upload over its limit), nothing of them is left: `key` holds what it held before (nothing,
   * for a new key), and `write` rejects with that error.
   */
  write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject>;
  /** The object's bytes (or the range of them, which must lie within it), read as they are consumed; undefined when there is no such key. */
  read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined>;
  stat(key: string): Promise<StoredObject | undefined>;
  /** Renames `from` to `to`, replacing what `to` held; rejects when there is no `from`. */
  move(from: string, to: string): Promise<void>;
  /** Removes the object; nothing happens when there is none. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in key order, listed page by page as consumed. */
  list(prefix: string): AsyncIterable<StoredObject>;
  /**
   * Where a store can hold bytes under no key (PostgreSQL large objects, which a process that dies
   * mid-write leaves behind), those bytes, page by page as consumed. For a report only: a write in
   * progress holds such bytes too until it points its key at them, and nothing tells the two apart.
   */
  unreferenced?(): AsyncIterable<UnreferencedBytes>;
}
