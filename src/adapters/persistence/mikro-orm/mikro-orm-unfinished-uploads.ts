import { sql } from 'kysely';
import type {
  UnfinishedUpload,
  UnfinishedUploads,
  UploadOpening,
} from '../../../application/ports/unfinished-uploads.ts';
import type { SystemDatabase } from './system-database.ts';
import { toDate } from './system-tables.ts';

/**
 * The first key of the transaction-scoped advisory lock an opening takes on its owner (the second is the
 * owner's hash); any stable number, taken by nothing else.
 */
const OWNER_UPLOADS_LOCK = 0x7475736f;

/** A row of `datagate_unfinished_uploads` per upload, shared by every instance on the database. */
export class MikroOrmUnfinishedUploads implements UnfinishedUploads {
  constructor(private readonly database: SystemDatabase) {}

  async open(upload: UnfinishedUpload, max: number, since: Date): Promise<UploadOpening> {
    // Two creations of one user at once (on two instances) would each count the other's upload out; the
    // lock on the owner makes the second count after the first has committed.
    return this.database.run((db) =>
      db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${OWNER_UPLOADS_LOCK}::int4, hashtext(${upload.owner}))`.execute(
          trx,
        );
        // Expired uploads count no more; their rows go here if no sweep removed them.
        await trx
          .deleteFrom('datagate_unfinished_uploads')
          .where('owner', '=', upload.owner)
          .where('created_at', '<=', since.toISOString())
          .execute();
        const counted = await trx
          .selectFrom('datagate_unfinished_uploads')
          .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('created_at').as('oldest')])
          .where('owner', '=', upload.owner)
          .executeTakeFirstOrThrow();
        if (Number(counted.count) >= max && counted.oldest !== null) {
          return { opened: false, oldest: toDate(counted.oldest) };
        }
        await trx
          .insertInto('datagate_unfinished_uploads')
          .values({ id: upload.id, owner: upload.owner, created_at: upload.createdAt.toISOString() })
          .execute();
        return { opened: true };
      }),
    );
  }

  async close(id: string): Promise<void> {
    await this.database.run((db) =>
      db.deleteFrom('datagate_unfinished_uploads').where('id', '=', id).execute(),
    );
  }
}
