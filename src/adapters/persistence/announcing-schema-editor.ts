import type { ActivityEntry } from '../../application/ports/activity-log.ts';
import type { ChangeFeed } from '../../application/ports/change-feed.ts';
import type {
  NewField,
  NewRelation,
  RelationChange,
  SchemaEditor,
} from '../../application/ports/schema-catalog.ts';
import type { AccountabilityMode } from '../../domain/schema/collection-schema.ts';

/**
 * Announces every schema change made through this instance once it is committed (the editor commits
 * before it returns), so that every other instance re-reads its catalog. Where an event trigger announces
 * DDL too, the others re-read twice: one cheap statement, for a rare change.
 */
export class AnnouncingSchemaEditor implements SchemaEditor {
  constructor(
    private readonly inner: SchemaEditor,
    private readonly feed: ChangeFeed,
  ) {}

  createCollection(
    name: string,
    fields: ReadonlyArray<NewField>,
    activity?: ActivityEntry,
    accountability?: AccountabilityMode,
  ) {
    return this.announced(this.inner.createCollection(name, fields, activity, accountability));
  }

  dropCollection(name: string, activity?: ActivityEntry) {
    return this.announced(this.inner.dropCollection(name, activity));
  }

  addField(collection: string, field: NewField, activity?: ActivityEntry) {
    return this.announced(this.inner.addField(collection, field, activity));
  }

  dropField(collection: string, field: string, activity?: ActivityEntry) {
    return this.announced(this.inner.dropField(collection, field, activity));
  }

  setAccountability(collection: string, mode: AccountabilityMode, activity?: ActivityEntry) {
    return this.announced(this.inner.setAccountability(collection, mode, activity));
  }

  createRelation(relation: NewRelation) {
    return this.announced(this.inner.createRelation(relation));
  }

  dropRelation(collection: string, field: string) {
    return this.announced(this.inner.dropRelation(collection, field));
  }

  updateRelation(collection: string, field: string, change: RelationChange) {
    return this.announced(this.inner.updateRelation(collection, field, change));
  }

  /** Announced even when the change failed half-way: a re-read costs little, a missed one misleads. */
  private async announced<T>(change: Promise<T>): Promise<T> {
    try {
      return await change;
    } finally {
      await this.feed.publish({ kind: 'schema' }).catch(() => {});
    }
  }
}
