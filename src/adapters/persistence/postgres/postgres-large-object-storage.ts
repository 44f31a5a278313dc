import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type {
  ByteRange,
  FileStorage,
  StoredObject,
  UnreferencedBytes,
} from '../../../application/ports/file-storage.ts';
import { assertStorageKey, assertStoragePrefix } from '../../storage-key.ts';

/** Bytes sent per statement of a write: one parameter of this size at a time, never the whole file. */
const WRITE_SLICE_BYTES = 1024 * 1024;
/*
 * Slices travel as base64 text, not bytea: PGlite turns a bytea parameter or result into bytes in
 * JavaScript about ten times slower than base64 (2 s a MiB written, 150 ms per 256 KiB read, against
 * 0.2 s and 10 ms), and pg's bytea results parse three times slower (docs/decisions/0038).
 */
/** Bytes fetched per statement of a read (`lo_get`), each on a connection taken for that statement only. */
const READ_SLICE_BYTES = 256 * 1024;
/** `lo_open`'s read-only mode (`INV_READ`) and `lo_lseek64`'s whence from the end (`SEEK_END`). */
const READ_MODE = 0x40000;
const SEEK_END = 2;
/** Objects per statement of a listing. */
const LIST_PAGE_SIZE = 1000;

/**
 * The first key of the advisory locks that serialize changes to one key (the second is the key's
 * hash); any stable number, taken by nothing else.
 */
const STORAGE_KEY_LOCK = 1_937_011_820;

/**
 * Above every character a key may hold (src/adapters/storage-key.ts: ASCII up to `z`), so that the keys
 * starting with a prefix are exactly those from the prefix up to the prefix followed by this: a range
 * the primary key's index answers.
 */
const AFTER_EVERY_KEY_CHARACTER = '~';

type ObjectRow = { key: string; oid: number | string; size: string | number; modified_ms: string | number };

export type PostgresLargeObjectStorageOptions = {
  /** The schema of the system tables, where `datagate_storage_objects` is; unset, the search path's. */
  readonly systemSchema?: string;
  /** Objects per statement of a listing (tests make it small to cross pages). */
  readonly listPageSize?: number;
};

/**
 * The storage port in PostgreSQL large objects (`storage.driver: postgres`, docs/decisions/0038), on
 * the embedded database or a server, so that instances share files with no shared disk and no S3.
 * `datagate_storage_objects` points each key at a large object. A write fills a new large object a
 * slice per statement (`lo_put`), then, in one short transaction, points the key at it and unlinks the
 * one it replaces; a write that fails unlinks its own. A read fetches a slice per statement (`lo_get`),
 * so no connection is held while a client downloads, and a replace meanwhile fails the read rather than
 * mixing two versions. Changes to one key take an advisory lock on it, so that concurrent ones unlink
 * exactly the objects they replace.
 */
export class PostgresLargeObjectStorage implements FileStorage {
  private readonly table: RawBuilder<unknown>;
  private readonly listPageSize: number;

  constructor(
    private readonly db: Kysely<unknown>,
    options: PostgresLargeObjectStorageOptions = {},
  ) {
    const name = 'datagate_storage_objects';
    this.table = options.systemSchema ? sql.id(options.systemSchema, name) : sql.id(name);
    this.listPageSize = options.listPageSize ?? LIST_PAGE_SIZE;
  }

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<StoredObject> {
    assertStorageKey(key);
    const created = await sql<{ oid: number | string }>`select lo_create(0) as "oid"`.execute(this.db);
    const oid = Number(created.rows[0]!.oid);
    try {
      let size = 0;
      for await (const slice of slices(bytes, WRITE_SLICE_BYTES)) {
        await sql`select lo_put(${oid}::oid, ${size}::int8, decode(${base64Of(slice)}, 'base64'))`.execute(
          this.db,
        );
        size += slice.byteLength;
      }
      return await this.db.transaction().execute(async (trx) => {
        await lockKeys(trx, key);
        const replaced = await this.oidOf(trx, key);
        const row = await this.upsert(trx, { key, oid, size });
        if (replaced !== undefined) await unlink(trx, replaced);
        return described(row);
      });
    } catch (error) {
      await unlink(this.db, oid).catch(() => {});
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertStorageKey(key);
    const found = await sql<ObjectRow>`select "oid", "size" from ${this.table} where "key" = ${key}`.execute(
      this.db,
    );
    const row = found.rows[0];
    if (!row) return undefined;
    const start = range?.start ?? 0;
    const end = range ? range.end + 1 : Number(row.size);
    return this.slicesOf(Number(row.oid), start, end);
  }

  async stat(key: string): Promise<StoredObject | undefined> {
    assertStorageKey(key);
    const found = await sql<ObjectRow>`select "key", "size", ${modifiedMs} as "modified_ms"
      from ${this.table} where "key" = ${key}`.execute(this.db);
    const row = found.rows[0];
    return row && described(row);
  }

  async move(from: string, to: string): Promise<void> {
    assertStorageKey(from);
    assertStorageKey(to);
    await this.db.transaction().execute(async (trx) => {
      await lockKeys(trx, from, to);
      const moved = await sql<ObjectRow>`delete from ${this.table} where "key" = ${from}
        returning "oid", "size", ${modifiedMs} as "modified_ms"`.execute(trx);
      const row = moved.rows[0];
      if (!row) throw new Error(`No object "${from}" to move`);
      const replaced = await this.oidOf(trx, to);
      await sql`insert into ${this.table} ("key", "oid", "size", "modified_at")
        values (${to}, ${row.oid}::oid, ${row.size}::int8, to_timestamp(${row.modified_ms}::float8 / 1000))
        on conflict ("key") do update set "oid" = excluded."oid", "size" = excluded."size",
          "modified_at" = excluded."modified_at"`.execute(trx);
      if (replaced !== undefined) await unlink(trx, replaced);
    });
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.db.transaction().execute(async (trx) => {
      await lockKeys(trx, key);
      await sql`with "gone" as (delete from ${this.table} where "key" = ${key} returning "oid")
        select lo_unlink("oid") from "gone"`.execute(trx);
    });
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    assertStoragePrefix(prefix);
    let after: string | undefined;
    for (;;) {
      const page = await sql<ObjectRow>`select "key", "size", ${modifiedMs} as "modified_ms"
        from ${this.table}
        where "key" >= ${prefix} and "key" < ${prefix + AFTER_EVERY_KEY_CHARACTER}
          ${after === undefined ? sql`` : sql`and "key" > ${after}`}
        order by "key" limit ${this.listPageSize}`.execute(this.db);
      for (const row of page.rows) yield described(row);
      if (page.rows.length < this.listPageSize) return;
      after = page.rows[page.rows.length - 1]!.key;
    }
  }

  /**
   * Large objects of this database's role that no key points at, in oid order, a page per statement:
   * what a process that died mid-write left, or a write still under way. Objects of other roles (another
   * application's) are not this store's. The size is the object's end, found without reading it.
   */
  async *unreferenced(): AsyncIterable<UnreferencedBytes> {
    let after = 0;
    for (;;) {
      const page = await sql<{ oid: number | string; size: number | string }>`select m."oid",
          lo_lseek64(lo_open(m."oid", ${READ_MODE}), 0, ${SEEK_END}) as "size"
        from pg_largeobject_metadata as m
        where m."lomowner" = current_user::text::regrole and m."oid" > ${after}::oid
          and not exists (select from ${this.table} as o where o."oid" = m."oid")
        order by m."oid" limit ${this.listPageSize}`.execute(this.db);
      for (const row of page.rows) yield { name: `large object ${row.oid}`, size: Number(row.size) };
      if (page.rows.length < this.listPageSize) return;
      after = Number(page.rows[page.rows.length - 1]!.oid);
    }
  }

  private async *slicesOf(oid: number, start: number, end: number): AsyncIterable<Uint8Array> {
    for (let at = start; at < end; at += READ_SLICE_BYTES) {
      const length = Math.min(READ_SLICE_BYTES, end - at);
      const slice = await sql<{ base64: string }>`select
        encode(lo_get(${oid}::oid, ${at}::int8, ${length}::int4), 'base64') as "base64"`.execute(this.db);
      yield Buffer.from(slice.rows[0]!.base64, 'base64');
    }
  }

  private async oidOf(trx: Transaction<unknown>, key: string): Promise<number | undefined> {
    const found = await sql<ObjectRow>`select "oid" from ${this.table} where "key" = ${key}`.execute(trx);
    const row = found.rows[0];
    return row && Number(row.oid);
  }

  private async upsert(
    trx: Transaction<unknown>,
    object: { key: string; oid: number; size: number },
  ): Promise<ObjectRow> {
    const written = await sql<ObjectRow>`insert into ${this.table} ("key", "oid", "size", "modified_at")
      values (${object.key}, ${object.oid}::oid, ${object.size}::int8, now())
      on conflict ("key") do update set "oid" = excluded."oid", "size" = excluded."size",
        "modified_at" = excluded."modified_at"
      returning "key", "size", ${modifiedMs} as "modified_ms"`.execute(trx);
    return written.rows[0]!;
  }
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Milliseconds since the epoch, a number on every driver (a timestamp's text differs between them). */
const modifiedMs = sql`extract(epoch from "modified_at") * 1000`;

function described(row: ObjectRow): StoredObject {
  return { key: row.key, size: Number(row.size), modifiedAt: new Date(Math.round(Number(row.modified_ms))) };
}

/** In one order whatever the caller's, so that two moves between the same keys cannot deadlock. */
async function lockKeys(trx: Transaction<unknown>, ...keys: string[]): Promise<void> {
  const hashes = sql.join(keys.map((key) => sql`(hashtext(${key}))`));
  await sql`select pg_advisory_xact_lock(${STORAGE_KEY_LOCK}::int4, "hash")
    from (values ${hashes}) as "keys" ("hash") order by "hash"`.execute(trx);
}

async function unlink(db: Kysely<unknown>, oid: number): Promise<void> {
  await sql`select lo_unlink(${oid}::oid)`.execute(db);
}

/**
 * The bytes cut or joined into slices of `size` (the last may be shorter), so that a client's small
 * chunks cost few statements and a large one never makes a larger parameter.
 */
async function* slices(bytes: AsyncIterable<Uint8Array>, size: number): AsyncIterable<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for await (const chunk of bytes) {
    for (let offset = 0; offset < chunk.byteLength; ) {
      const taken = chunk.subarray(offset, offset + size - pendingBytes);
      pending.push(taken);
      pendingBytes += taken.byteLength;
      offset += taken.byteLength;
      if (pendingBytes === size) {
        yield pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}
