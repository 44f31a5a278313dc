import type { ActivityEntry } from '../../../application/ports/activity-log.ts';
import type {
  NewField,
  NewRelation,
  RelationChange,
  SchemaEditor,
} from '../../../application/ports/schema-catalog.ts';
import type { AccountabilityMode, CollectionSchema } from '../../../domain/schema/collection-schema.ts';
import type { Relation } from '../../../domain/schema/relation.ts';
import type { PostgresCollectionWatch } from './postgres-collection-watch.ts';

/**
 * Keeps a watched collection's recording in step with its fields (docs/api.md §12): a field added or
 * dropped through the API renews the trigger function from the refreshed catalog, whose check would
 * otherwise refuse every write to the collection; a dropped collection leaves no function behind.
 */
export class WatchKeepingSchemaEditor implements SchemaEditor {
  constructor(
    private readonly editor: SchemaEditor,
    private readonly watch: PostgresCollectionWatch,
  ) {}

  createCollection(
    name: string,
    fields: ReadonlyArray<NewField>,
    activity?: ActivityEntry,
    accountability?: AccountabilityMode,
  ): Promise<CollectionSchema> {
    return this.editor.createCollection(name, fields, activity, accountability);
  }

  async dropCollection(name: string, activity?: ActivityEntry): Promise<void> {
    await this.editor.dropCollection(name, activity);
    await this.watch.forget(name);
  }

  async addField(collection: string, field: NewField, activity?: ActivityEntry): Promise<CollectionSchema> {
    return this.renewed(await this.editor.addField(collection, field, activity));
  }

  async dropField(collection: string, field: string, activity?: ActivityEntry): Promise<CollectionSchema> {
    return this.renewed(await this.editor.dropField(collection, field, activity));
  }

  setAccountability(
    collection: string,
    mode: AccountabilityMode,
    activity?: ActivityEntry,
  ): Promise<CollectionSchema> {
    return this.editor.setAccountability(collection, mode, activity);
  }

  createRelation(relation: NewRelation): Promise<Relation> {
    return this.editor.createRelation(relation);
  }

  dropRelation(collection: string, field: string): Promise<void> {
    return this.editor.dropRelation(collection, field);
  }

  updateRelation(collection: string, field: string, change: RelationChange): Promise<Relation> {
    return this.editor.updateRelation(collection, field, change);
  }

  /** `collection`: as the editor answers it, from the catalog it refreshed. */
  private async renewed(collection: CollectionSchema): Promise<CollectionSchema> {
    const watched = await this.watch.watched();
    if (watched.some((entry) => entry.collection === collection.name)) await this.watch.watch(collection);
    return collection;
  }
}
