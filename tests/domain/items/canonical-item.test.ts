import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withCanonicalJson } from '../../../src/domain/items/canonical-item.ts';
import { cargosSchema } from '../../support/cargos-schema.ts';

test("json text in PostgreSQL's rendering becomes canonical: jsonb key order, no spaces", () => {
  const row = { id: 'x', manifest: '{"zz": 1, "a": [1, 2]}' };
  assert.equal(withCanonicalJson(row, cargosSchema), { id: 'x', manifest: '{"a":[1,2],"zz":1}' });
});

test('canonical items, nulls and text that is not JSON are returned untouched', () => {
  for (const manifest of ['{"a":1}', null, 'not json']) {
    const row = { manifest, description: '{"b": 1}' };
    assert.is(withCanonicalJson(row, cargosSchema), row);
  }
});

test.run();
