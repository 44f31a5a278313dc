import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createInMemoryPersistence } from '../../../src/adapters/persistence/memory/in-memory-persistence.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import type { FilterNode } from '../../../src/domain/query/filter.ts';
import type { FieldSelection, NestedSelection } from '../../../src/domain/query/item-query.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import {
  parseItemQuery,
  type QueryLimits,
  type RawItemQuery,
} from '../../../src/domain/query/parse-item-query.ts';
import type { SchemaSnapshot } from '../../../src/domain/schema/collection-schema.ts';
import { createShippingSchema } from '../../support/shipping-schema.ts';

const LIMITS: QueryLimits = { limitDefault: 100, limitMax: 1000, maxRelationalDepth: 3 };

async function shippingSnapshot(): Promise<SchemaSnapshot> {
  const persistence = createInMemoryPersistence();
  await createShippingSchema(persistence.schemaEditor);
  return persistence.schema.current();
}

const snapshot = await shippingSnapshot();
const collection = (name: string) => snapshot.collections.get(name)!;
const parse = (raw: RawItemQuery, from = 'cargos', limits = LIMITS) =>
  parseItemQuery(raw, collection(from), limits, snapshot);

function refused(raw: RawItemQuery, reason: string, from = 'cargos', limits = LIMITS) {
  const label = JSON.stringify(raw);
  try {
    parse(raw, from, limits);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_QUERY', label);
    assert.is(error.extensions.reason, reason, label);
    return;
  }
  assert.unreachable(`${label} was accepted`);
}

/** A selection as text: `[fields] {key: (direction implicit? keys?) …}`, to compare trees at a glance. */
function outline(selection: FieldSelection): unknown {
  const relations: Record<string, unknown> = {};
  for (const [key, nested] of selection.relations ?? []) relations[key] = nestedOutline(nested);
  return selection.relations ? { fields: selection.fields, relations } : { fields: selection.fields };
}

function nestedOutline(nested: NestedSelection): unknown {
  return {
    to: nested.hop.collection.name,
    direction: nested.hop.direction,
    ...(nested.implicit ? { implicit: true } : {}),
    ...(nested.keysOnly ? { keysOnly: true } : {}),
    ...(outline(nested) as object),
  };
}

test('without the schema, paths stay refused as before', () => {
  try {
    parseItemQuery({ fields: 'shipment.number' }, collection('cargos'), LIMITS);
    assert.unreachable();
  } catch (error) {
    assert.is((error as DomainError).extensions.reason, 'UNKNOWN_FIELD');
  }
  assert.throws(() => parseFilter({ shipment: { number: { _eq: 'S-1' } } }, collection('cargos')));
});

test('a flat query stays flat: no relations, not marked relational', () => {
  const query = parse({ fields: 'id,shipment', filter: { shipment: { _null: true } }, sort: '-id' });
  assert.equal(query.fields, ['id', 'shipment']);
  assert.is(query.relations, undefined);
  assert.is(query.relational, undefined);
  assert.equal(query.filter, { kind: 'condition', field: 'shipment', operator: '_null' });
});

test('many-to-one paths nest, named where first asked for', () => {
  const query = parse({ fields: 'id,shipment.number,shipment.customer.name' });
  assert.is(query.relational, true);
  assert.equal(outline(query), {
    fields: ['id', 'shipment'],
    relations: {
      shipment: {
        to: 'shipments',
        direction: 'many-to-one',
        fields: ['number', 'customer'],
        relations: {
          customer: { to: 'customers', direction: 'many-to-one', fields: ['name'] },
        },
      },
    },
  });
});

test('a one-to-many alias alone asks for keys; with sub-fields, for objects; the page defaults as a list', () => {
  const keys = parse({ fields: 'id,cargos' }, 'shipments');
  assert.equal(outline(keys), {
    fields: ['id', 'cargos'],
    relations: { cargos: { to: 'cargos', direction: 'one-to-many', keysOnly: true, fields: [] } },
  });
  assert.equal(keys.relations?.get('cargos')?.page, { filter: null, sort: [], limit: 100, offset: 0 });
  const objects = parse({ fields: 'cargos.*' }, 'shipments');
  assert.equal(outline(objects), {
    fields: ['cargos'],
    relations: { cargos: { to: 'cargos', direction: 'one-to-many', fields: '*' } },
  });
});

test('*.* expands every relation one level, implicitly; * alone stays flat', () => {
  assert.equal(outline(parse({ fields: '*' }, 'shipments')), { fields: '*' });
  assert.equal(outline(parse({ fields: '*.*' }, 'shipments')), {
    fields: '*',
    relations: {
      customer: { to: 'customers', direction: 'many-to-one', implicit: true, fields: '*' },
      cargos: { to: 'cargos', direction: 'one-to-many', implicit: true, fields: '*' },
    },
  });
  const deeper = parse({ fields: '*.*.*' }, 'cargos');
  const shipment = deeper.relations?.get('shipment');
  assert.equal([...(shipment?.relations?.keys() ?? [])], ['customer', 'cargos']);
});

test('a named path beside a wildcard is explicit, and keeps the wildcard below it', () => {
  const query = parse({ fields: '*.*,shipment.customer.name' });
  const shipment = query.relations?.get('shipment');
  assert.is(shipment?.implicit, false);
  assert.equal(shipment?.fields, ['*', 'customer']);
  assert.is(shipment?.relations?.get('customer')?.implicit, false);
});

test('depth: at most maxRelationalDepth hops per path, wildcards included', () => {
  parse({ fields: 'shipment.customer.shipments.number' });
  parse({ fields: '*.*.*.*' });
  refused({ fields: 'shipment.customer.shipments.cargos.label' }, 'MAX_DEPTH');
  refused({ fields: '*.*.*.*.*' }, 'MAX_DEPTH');
  refused({ fields: 'shipment.*.*.*.*' }, 'MAX_DEPTH');
  refused({ fields: 'shipment.number' }, 'MAX_DEPTH', 'cargos', { ...LIMITS, maxRelationalDepth: 0 });
});

test('paths through non-relations, unknown fields and misplaced wildcards are refused', () => {
  refused({ fields: 'label.x' }, 'UNKNOWN_FIELD');
  refused({ fields: 'shipment.nope' }, 'UNKNOWN_FIELD');
  refused({ fields: 'nope.id' }, 'UNKNOWN_FIELD');
  refused({ fields: '*.label' }, 'INVALID_VALUE');
});

test('deep: _filter, _sort, _limit, _offset on a selected one-to-many, JSON or bracket form', () => {
  const bracket = parse(
    {
      fields: 'id,cargos.label',
      deep: { cargos: { _filter: { weight: { _gt: '5' } }, _sort: '-weight', _limit: '2', _offset: '1' } },
    },
    'shipments',
  );
  const json = parse(
    {
      fields: 'id,cargos.label',
      deep: '{"cargos":{"_filter":{"weight":{"_gt":5}},"_sort":["-weight"],"_limit":2,"_offset":1}}',
    },
    'shipments',
  );
  const page = {
    filter: { kind: 'condition', field: 'weight', operator: '_gt', value: 5 },
    sort: [{ field: 'weight', direction: 'desc' }],
    limit: 2,
    offset: 1,
  };
  assert.equal(bracket.relations?.get('cargos')?.page, page);
  assert.equal(json.relations?.get('cargos')?.page, page);
});

test('deep: nested under a selected relation; refused when unknown, not selected, too large or on a many-to-one', () => {
  const nested = parse(
    { fields: 'shipments.cargos.id', deep: { shipments: { cargos: { _limit: '3' } } } },
    'customers',
  );
  assert.is(nested.relations?.get('shipments')?.relations?.get('cargos')?.page?.limit, 3);
  refused({ fields: 'cargos.id', deep: { cargos: { _nope: '1' } } }, 'INVALID_VALUE', 'shipments');
  refused({ fields: 'id', deep: { cargos: { _limit: '1' } } }, 'INVALID_VALUE', 'shipments');
  refused({ fields: 'cargos.id', deep: { cargos: { _limit: '1001' } } }, 'LIMIT_ABOVE_MAX', 'shipments');
  refused({ fields: 'shipment.number', deep: { shipment: { _limit: '1' } } }, 'INVALID_VALUE');
  refused({ fields: 'cargos.id', deep: '{' }, 'INVALID_VALUE', 'shipments');
  refused(
    { fields: 'cargos.id', deep: { cargos: { _filter: { nope: { _eq: 1 } } } } },
    'UNKNOWN_FIELD',
    'shipments',
  );
});

test('filters across a many-to-one: paths become relation conditions, operators stay on the column', () => {
  const query = parse({ filter: { shipment: { customer: { name: { _eq: 'ACME' } }, _nnull: 'true' } } });
  const filter = query.filter as FilterNode;
  assert.is(query.relational, true);
  if (filter.kind !== 'and') return assert.unreachable(filter.kind);
  const [own, related] = filter.nodes;
  assert.equal(own, { kind: 'condition', field: 'shipment', operator: '_nnull' });
  assert.is(related?.kind, 'relation');
  if (related?.kind !== 'relation') return;
  assert.is(related.hop.key, 'shipment');
  assert.is(related.quantifier, 'some');
  assert.is(related.node.kind, 'relation');
  if (related.node.kind !== 'relation') return;
  assert.is(related.node.hop.collection.name, 'customers');
  assert.equal(related.node.node, { kind: 'condition', field: 'name', operator: '_eq', value: 'ACME' });
});

test('filters across a one-to-many: _some, _none, and a bare filter meaning _some', () => {
  const quantifiers = (raw: RawItemQuery['filter']) => {
    const filter = parse({ filter: raw }, 'shipments').filter!;
    const nodes = filter.kind === 'and' ? filter.nodes : [filter];
    return nodes.map((node) => (node.kind === 'relation' ? `${node.hop.key}:${node.quantifier}` : node.kind));
  };
  assert.equal(quantifiers({ cargos: { _some: { weight: { _gt: '5' } } } }), ['cargos:some']);
  assert.equal(quantifiers({ cargos: { _none: { weight: { _gt: '5' } } } }), ['cargos:none']);
  assert.equal(quantifiers({ cargos: { weight: { _gt: '5' } } }), ['cargos:some']);
  refused({ filter: { cargos: { _null: 'true' } } }, 'UNSUPPORTED_OPERATOR', 'shipments');
  refused(
    { filter: { shipment: { cargos: { shipment: { customer: { shipments: { id: { _eq: 1 } } } } } } } },
    'MAX_DEPTH',
  );
});

test('sort through many-to-one hops; never through a one-to-many', () => {
  const query = parse({ sort: '-shipment.customer.name,id' });
  assert.is(query.relational, true);
  const [first, second] = query.sort;
  assert.is(first?.field, 'name');
  assert.is(first?.direction, 'desc');
  assert.equal(
    first?.hops?.map((hop) => hop.key),
    ['shipment', 'customer'],
  );
  assert.equal(second, { field: 'id', direction: 'asc' });
  refused({ sort: 'cargos.weight' }, 'INVALID_VALUE', 'shipments');
  refused({ sort: 'label.x' }, 'UNKNOWN_FIELD');
  refused({ sort: 'shipment.customer.shipments.id' }, 'INVALID_VALUE');
  refused({ sort: 'shipment.number,shipment.number' }, 'INVALID_VALUE');
});

test('a key named __proto__ in a relational filter or in deep is refused, never dropped', () => {
  refused({ filter: '{"shipment":{"__proto__":{"number":{"_eq":"S-1"}}}}' }, 'UNKNOWN_FIELD');
  refused(
    { fields: 'cargos.id', deep: '{"cargos":{"__proto__":{"_limit":1}}}' },
    'INVALID_VALUE',
    'shipments',
  );
  refused({ fields: 'cargos.id', deep: '{"__proto__":{"_limit":1}}' }, 'INVALID_VALUE', 'shipments');
});

test.run();
