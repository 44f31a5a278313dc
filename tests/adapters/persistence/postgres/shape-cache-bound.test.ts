import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CompiledShapes } from '../../../../src/adapters/persistence/postgres/compiled-shapes.ts';
import type { ItemListRequest, SelectedField } from '../../../../src/application/ports/item-store.ts';
import type { CollectionSchema } from '../../../../src/domain/schema/collection-schema.ts';

const NAME = 'n'.repeat(60);

const collection: CollectionSchema = {
  name: 'parcels',
  primaryKey: 'id',
  fields: ['id', NAME].map((name) => ({
    name,
    type: 'integer',
    dbType: 'integer',
    nullable: name !== 'id',
    defaultValue: null,
    isPrimaryKey: name === 'id',
    isUnique: name === 'id',
    hasDefault: false,
    maxLength: null,
  })),
};

function list(select: ReadonlyArray<SelectedField>): ItemListRequest {
  return {
    collection,
    select,
    visible: null,
    filter: null,
    sort: [],
    limit: 10,
    offset: 0,
    count: { total: false, filtered: false, estimatedTotal: false, estimatedFiltered: false },
  };
}

/**
 * The size of a statement is the caller's to choose (a relational `fields` expands to as many subqueries as
 * the schema has relations), so the compiled-shape cache is bounded by what it holds, not only by count:
 * a statement of millions of characters is built for its request and neither kept nor prepared.
 */
test('a statement too large to keep is answered unnamed, a small one is prepared', () => {
  const shapes = new CompiledShapes();
  const small = shapes.list(list([{ field: 'id', visibleWhen: null }]), 'public');
  assert.type(small.name, 'string');
  const huge = list(Array.from({ length: 100_000 }, () => ({ field: NAME, visibleWhen: null })));
  const first = shapes.list(huge, 'public');
  assert.ok(first.text.length > 8_000_000, `the statement has ${first.text.length} characters`);
  assert.is(first.name, null);
  assert.is(shapes.list(huge, 'public').name, null);
  assert.is(shapes.list(list([{ field: 'id', visibleWhen: null }]), 'public').name, small.name);
});

test.run();
