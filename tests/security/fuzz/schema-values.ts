import fc from 'fast-check';
import type { JsonSchema, JsonType } from '../../../src/adapters/http/openapi/openapi-types.ts';
import { filterTree } from './filters.ts';
import {
  edgeNumber,
  hostileText,
  PROTOTYPE_NAMES,
  reference,
  smallJson,
  sometimesHostile,
} from './hostile-values.ts';
import { type Json, JsonObject, NumberLiteral, type PoolName } from './json-tree.ts';

/**
 * A JSON Schema as the document writes it, plus `x-pool`: a string that names something of the fixture
 * (a role id, an e-mail), used by the hand-written descriptions of the operations the document leaves out.
 */
export type FuzzSchema = Omit<JsonSchema, 'properties' | 'items' | 'oneOf'> & {
  properties?: Record<string, FuzzSchema>;
  items?: FuzzSchema;
  oneOf?: FuzzSchema[];
  'x-pool'?: PoolName;
  'x-filter'?: true;
};

export type SchemaContext = { schemas: Readonly<Record<string, JsonSchema>> };

/**
 * Values for a schema: mostly valid ones (so requests get past the first check and reach the handlers),
 * boundary ones (lengths, ranges, formats at their edge), and at every level, now and then, a hostile
 * value of any kind in place of the valid one.
 */
export function valuesOf(schema: FuzzSchema, context: SchemaContext, depth = 0): fc.Arbitrary<Json> {
  return sometimesHostile(validOf(schema, context, depth), depth === 0 ? 4 : 8);
}

function validOf(schema: FuzzSchema, context: SchemaContext, depth: number): fc.Arbitrary<Json> {
  if (schema.$ref) return validOf(dereference(schema.$ref, context), context, depth);
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((option) => valuesOf(option, context, depth)));
  if (schema.const !== undefined) return fc.constant(schema.const as Json);
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema['x-pool']) return reference(schema['x-pool']);
  if (schema['x-filter']) return filterTree;
  if (schema.type === undefined) return smallJson;
  const types: JsonType[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  return fc.oneof(...types.map((type) => ofType(type, schema, context, depth)));
}

function ofType(
  type: JsonType,
  schema: FuzzSchema,
  context: SchemaContext,
  depth: number,
): fc.Arbitrary<Json> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integers(schema);
    case 'number':
      return fc.oneof(
        { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
        edgeNumber,
      );
    case 'string':
      return strings(schema);
    case 'array': {
      const items = schema.items ?? {};
      return fc.array(valuesOf(items, context, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'object':
      return objects(schema, context, depth);
  }
}

function integers(schema: FuzzSchema): fc.Arbitrary<Json> {
  const [low, high] =
    schema.format === 'int64'
      ? [-(2 ** 53) + 1, 2 ** 53 - 1]
      : [schema.minimum ?? -2_147_483_648, schema.maximum ?? 2_147_483_647];
  const edges: Json[] = [low, high, low - 1, high + 1, 0];
  if (schema.format === 'int64') {
    edges.push(
      new NumberLiteral('9223372036854775807'),
      new NumberLiteral('9223372036854775808'),
      '-9223372036854775808',
      '42',
    );
  }
  return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: low, max: high }) }, fc.constantFrom(...edges));
}

const DATES = [
  '2024-02-29',
  '1970-01-01',
  '0001-01-01',
  '9999-12-31',
  '2024-13-01',
  '2023-02-29',
  '20240101',
];
const TIMES = ['08:30:00', '00:00:00', '23:59:59.999999', '24:00:00', '12:60:00', '8:30', '08:30:00+02:00'];
const DATE_TIMES = [
  '2024-01-10T08:00:00Z',
  '2024-01-10T08:00:00+14:00',
  '2024-01-10T08:00:00.123456789Z',
  '2024-01-10 08:00:00',
  '2024-01-10T08:00:00',
  '294277-01-01T00:00:00Z',
  '-4713-11-24T00:00:00Z',
];

function strings(schema: FuzzSchema): fc.Arbitrary<Json> {
  if (schema.format === 'uuid') {
    return fc.oneof(
      { weight: 3, arbitrary: reference('uuid') },
      fc.uuid(),
      fc.constantFrom(
        '00000000-0000-0000-0000-000000000000',
        'not-a-uuid',
        '0190A000-0000-7000-8000-000000000001',
      ),
    );
  }
  if (schema.format === 'date') return fc.constantFrom(...DATES);
  if (schema.format === 'date-time') return fc.constantFrom(...DATE_TIMES, ...DATES);
  if (schema.examples?.length) {
    return fc.oneof(
      fc.constantFrom(...(schema.examples as string[])),
      fc.constantFrom(...TIMES, ...DATE_TIMES),
    );
  }
  if (schema.pattern)
    return fc.oneof(
      fc.constantFrom('42', '-9223372036854775808', '9223372036854775808', '1.5', ' 1'),
      fc.bigInt().map(String),
    );
  const max = schema.maxLength;
  const plain = fc.string({ maxLength: Math.min(max ?? 24, 24) });
  if (max === undefined) return fc.oneof({ weight: 4, arbitrary: plain }, hostileText);
  return fc.oneof(
    { weight: 4, arbitrary: plain },
    fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), 'é'.repeat(max), '🚢'.repeat(max)),
  );
}

function objects(schema: FuzzSchema, context: SchemaContext, depth: number): fc.Arbitrary<Json> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  // Each property: left out (rarely when required), or given a value.
  const members = properties.map(([name, property]) =>
    fc.option(
      valuesOf(property, context, depth + 1).map((value): readonly [string, Json] => [name, value]),
      { freq: required.has(name) ? 12 : 2, nil: undefined },
    ),
  );
  const extra = fc.option(
    fc.tuple(
      fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES, 'nope', ''), fc.string({ maxLength: 8 })),
      smallJson,
    ),
    { freq: 8, nil: undefined },
  );
  return fc.tuple(fc.tuple(...members), extra).map(([given, unknown]) => {
    const chosen = given.filter((member) => member !== undefined);
    return new JsonObject(unknown ? [...chosen, unknown] : chosen);
  });
}

function dereference(ref: string, context: SchemaContext): JsonSchema {
  const name = ref.replace('#/components/schemas/', '');
  const schema = context.schemas[name];
  if (!schema) throw new Error(`the document refers to a schema it does not hold: ${ref}`);
  return schema;
}
