import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { aggregateRows } from '../../../../src/adapters/persistence/memory/in-memory-aggregates.ts';
import { RelatedRows } from '../../../../src/adapters/persistence/memory/in-memory-related-rows.ts';
import type { CollectionSchema, FieldSchema } from '../../../../src/domain/schema/collection-schema.ts';

const amount: FieldSchema = {
  name: 'amount',
  type: 'decimal',
  dbType: 'numeric(12,2)',
  nullable: true,
  defaultValue: null,
  isPrimaryKey: false,
  isUnique: false,
  hasDefault: false,
  maxLength: null,
};

const LEDGER: CollectionSchema = { name: 'ledger', primaryKey: null, fields: [amount] };

test('a sum over a group larger than the call stack holds arguments answers, not a RangeError', () => {
  const rows = Array.from({ length: 300_000 }, () => ({ amount: '0.01' }));
  const answer = aggregateRows(
    rows,
    {
      collection: LEDGER,
      aggregates: [{ fn: 'sum', field: 'amount' }],
      groupBy: [],
      visible: null,
      filter: null,
      sort: [],
      limit: null,
      offset: 0,
    },
    new RelatedRows(() => []),
  );
  assert.equal(JSON.parse(answer), [{ sum: { amount: 3000 } }]);
});

test.run();
