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
export type FuzzSchema = Omit<JsonSchema, 'properties' | 'items' | 'oneOf' | 'anyOf'> & {
  properties?: Record<string, FuzzSchema>;
  items?: FuzzSchema;
  oneOf?: FuzzSchema[];
  anyOf?: FuzzSchema[];
  'x-pool'?: PoolName;
  'x-filter'?: true;
};

export type SchemaContext = { schemas: Readonly<Record<string, JsonSchema>> };

/**
 * Values for a schema: mostly valid ones, boundary ones (lengths, ranges, formats at their edge), and at
 * every level, now and then, a hostile value of any kind in place of the valid one. A value with a
 * hostile part anywhere is mostly refused at the first check; `validValuesOf` with one leaf mutated
 * (`mutateOneLeaf`) is what carries a hostile value deep into the handlers.
 */
export function valuesOf(schema: FuzzSchema, context: SchemaContext, depth = 0): fc.Arbitrary<Json> {
  return sometimesHostile(validOf(schema, { ...context, strict: false }, depth), depth === 0 ? 4 : 5);
}

/** Values that keep to the schema: required members present, no unknown member, values in range. */
export function validValuesOf(schema: FuzzSchema, context: SchemaContext): fc.Arbitrary<Json> {
  return validOf(schema, { ...context, strict: true }, 0);
}

/** `value` with its `index`-th leaf (modulo their number) replaced. */
export function mutateOneLeaf(value: Json, index: number, replacement: Json): Json {
  const count = leafCount(value);
  let left = index % Math.max(count, 1);
  const walk = (node: Json): Json => {
    if (Array.isArray(node) && node.length > 0) return node.map(walk);
    if (node instanceof JsonObject && node.members.length > 0) {
      return new JsonObject(node.members.map(([key, member]) => [key, walk(member)] as const));
    }
    return left-- === 0 ? replacement : node;
  };
  return walk(value);
}

function leafCount(value: Json): number {
  if (Array.isArray(value) && value.length > 0)
    return value.reduce((sum: number, item) => sum + leafCount(item), 0);
  if (value instanceof JsonObject && value.members.length > 0) {
    return value.members.reduce((sum, [, member]) => sum + leafCount(member), 0);
  }
  return 1;
}

type Generation = SchemaContext & { strict: boolean };

const child = (schema: FuzzSchema, context: Generation, depth: number) =>
  context.strict ? validOf(schema, context, depth) : valuesOf(schema, context, depth);

function validOf(schema: FuzzSchema, context: Generation, depth: number): fc.Arbitrary<Json> {
  if (schema.$ref) return validOf(dereference(schema.$ref, context), context, depth);
  const options = schema.oneOf ?? schema.anyOf;
  if (options) return fc.oneof(...options.map((option) => child(option, context, depth)));
  if (schema.const !== undefined) return fc.constant(schema.const as Json);
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema['x-pool']) return reference(schema['x-pool']);
  if (schema['x-filter']) return filterTree;
  if (schema.type === undefined) return smallJson;
  const types: JsonType[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  return fc.oneof(...types.map((type) => ofType(type, schema, context, depth)));
}

function ofType(type: JsonType, schema: FuzzSchema, context: Generation, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return edged(fc.integer(integerRange(schema)), integerEdges(schema), context);
    case 'number':
      return edged(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
        [edgeNumber],
        context,
      );
    case 'string':
      return strings(schema, context);
    case 'array': {
      const items = schema.items ?? {};
      return fc.array(child(items, context, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'object':
      return objects(schema, context, depth);
  }
}

/** The valid values alone when strict; else, one time in four, a value at or past an edge. */
function edged(valid: fc.Arbitrary<Json>, edges: ReadonlyArray<fc.Arbitrary<Json>>, context: Generation) {
  return context.strict ? valid : fc.oneof({ weight: 3, arbitrary: valid }, ...edges);
}

function integerRange(schema: FuzzSchema): { min: number; max: number } {
  return schema.format === 'int64'
    ? { min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }
    : { min: schema.minimum ?? -2_147_483_648, max: schema.maximum ?? 2_147_483_647 };
}

function integerEdges(schema: FuzzSchema): Array<fc.Arbitrary<Json>> {
  const { min, max } = integerRange(schema);
  const edges: Json[] = [min, max, min - 1, max + 1, 0];
  if (schema.format === 'int64') {
    edges.push(
      new NumberLiteral('9223372036854775807'),
      new NumberLiteral('9223372036854775808'),
      '-9223372036854775808',
      '42',
    );
  }
  return [fc.constantFrom(...edges)];
}

const DATES = ['2024-02-29', '1970-01-01', '0001-01-01', '9999-12-31'];
const BAD_DATES = ['2024-13-01', '2023-02-29', '20240101', '0000-01-01'];
const TIMES = ['08:30:00', '00:00:00', '23:59:59.999999'];
const BAD_TIMES = ['24:00:01', '12:60:00', '8:30', '08:30:00+02:00'];
const DATE_TIMES = ['2024-01-10T08:00:00Z', '2024-01-10T08:00:00+14:00', '2024-01-10T08:00:00.123456Z'];
const BAD_DATE_TIMES = [
  '2024-01-10 08:00:00',
  '2024-01-10T08:00:00.123456789Z',
  '294277-01-01T00:00:00Z',
  '-4713-11-24T00:00:00Z',
];
const TIMESTAMPS = ['2024-01-10T08:00:00', '2024-02-29T23:59:59.5'];

function strings(schema: FuzzSchema, context: Generation): fc.Arbitrary<Json> {
  const choose = (valid: ReadonlyArray<string>, bad: ReadonlyArray<string>) =>
    edged(fc.constantFrom(...valid), [fc.constantFrom(...bad)], context);
  if (schema.format === 'uuid') {
    return edged(
      fc.oneof({ weight: 3, arbitrary: reference('uuid') }, fc.uuid()),
      [
        fc.constantFrom(
          '00000000-0000-0000-0000-000000000000',
          'not-a-uuid',
          '0190A000-0000-7000-8000-000000000001',
        ),
      ],
      context,
    );
  }
  if (schema.format === 'date') return choose(DATES, BAD_DATES);
  if (schema.format === 'date-time') return choose(DATE_TIMES, [...BAD_DATE_TIMES, ...DATES]);
  // Zone-less values carry their form in an example: a timestamp or a time of day.
  if (schema.examples?.length) {
    const isTime = String(schema.examples[0]).length <= 8;
    return isTime
      ? choose(TIMES, [...BAD_TIMES, ...TIMESTAMPS])
      : choose(TIMESTAMPS, [...BAD_DATE_TIMES, ...TIMES]);
  }
  if (schema.pattern) {
    return edged(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
      [fc.constantFrom('9223372036854775808', '1.5', ' 1', '')],
      context,
    );
  }
  const max = schema.maxLength;
  const plain = fc.string({ maxLength: Math.min(max ?? 24, 24) });
  if (max === undefined) return edged(plain, [hostileText], context);
  return edged(
    plain,
    [fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), 'é'.repeat(max), '🚢'.repeat(max))],
    context,
  );
}

function objects(schema: FuzzSchema, context: Generation, depth: number): fc.Arbitrary<Json> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  // Each property: left out (never when strict and required, rarely otherwise), or given a value.
  const members = properties.map(([name, property]) => {
    const member = child(property, context, depth + 1).map((value): readonly [string, Json] => [name, value]);
    if (required.has(name) && context.strict) return member;
    return fc.option(member, { freq: required.has(name) ? 12 : 2, nil: undefined });
  });
  const extra = context.strict
    ? fc.constant(undefined)
    : fc.option(
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
