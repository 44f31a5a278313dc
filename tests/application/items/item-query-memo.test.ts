import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ItemQueryMemo } from '../../../src/application/items/item-query-memo.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import type { SchemaSnapshot } from '../../../src/domain/schema/collection-schema.ts';
import { cargosSchema } from '../../support/cargos-schema.ts';

const LIMITS = { limitDefault: 100, limitMax: 1000 };
const aSnapshot = (): SchemaSnapshot => ({ collections: new Map([['cargos', cargosSchema]]), relations: [] });

test('the same query of the same collection is parsed once per snapshot', () => {
  const memo = new ItemQueryMemo(LIMITS);
  const snapshot = aSnapshot();
  const first = memo.parse({ limit: '10', sort: '-temperature' }, cargosSchema, snapshot);
  assert.is(memo.parse({ limit: '10', sort: '-temperature' }, cargosSchema, snapshot), first);
  assert.is(first.limit, 10);
  assert.is.not(memo.parse({ limit: '11', sort: '-temperature' }, cargosSchema, snapshot), first);
});

test('a new schema snapshot parses again', () => {
  const memo = new ItemQueryMemo(LIMITS);
  const before = memo.parse({ limit: '10' }, cargosSchema, aSnapshot());
  const after = memo.parse({ limit: '10' }, cargosSchema, aSnapshot());
  assert.is.not(after, before);
  assert.equal(after, before);
});

test('a collection other than the one a query was parsed against parses again, in the same snapshot', () => {
  const memo = new ItemQueryMemo(LIMITS);
  const snapshot = aSnapshot();
  const before = memo.parse({ limit: '10' }, cargosSchema, snapshot);
  const changed = { ...cargosSchema, fields: [...cargosSchema.fields] };
  assert.is.not(memo.parse({ limit: '10' }, changed, snapshot), before);
});

test('a refused query is refused every time, not remembered', () => {
  const memo = new ItemQueryMemo(LIMITS);
  const snapshot = aSnapshot();
  for (let attempt = 0; attempt < 2; attempt++) {
    assert.throws(
      () => memo.parse({ limit: '-1' }, cargosSchema, snapshot),
      (error: unknown) => error instanceof DomainError && error.code === 'INVALID_QUERY',
    );
  }
});

test('a witnessed parse and a long query are parsed every time', () => {
  const memo = new ItemQueryMemo(LIMITS);
  const snapshot = aSnapshot();
  const named: string[] = [];
  const witness = { crossed: () => {}, named: (path: string) => named.push(path) };
  const raw = { filter: { temperature: { _gt: '1' } } };
  memo.parse(raw, cargosSchema, snapshot, witness);
  memo.parse(raw, cargosSchema, snapshot, witness);
  assert.equal(named, ['temperature', 'temperature']);
  const long = { fields: Array.from({ length: 200 }, () => 'temperature').join(',') };
  assert.is.not(memo.parse(long, cargosSchema, snapshot), memo.parse(long, cargosSchema, snapshot));
});

test.run();
