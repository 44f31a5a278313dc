import type { CollectionSchema, SchemaSnapshot } from '../schema/collection-schema.ts';
import { manyToOneOf, oneToManyOf } from '../schema/relations-of.ts';
import type { RelationalHop } from './relational-hop.ts';

/**
 * How a query follows relations: the schema that declares them, and how many hops one path may take
 * (`query.maxRelationalDepth`). Parsers given none refuse every path, as permission rules and write
 * filters must.
 */
export type RelationalContext = {
  readonly schema: SchemaSnapshot;
  readonly maxHops: number;
  /** Told of every relation a path of the query crosses and every field whose type it looks at. */
  readonly witness?: QueryWitness;
};

/**
 * Told of what a query names as it is parsed, before any refusal that could depend on it: what a caller
 * may hear about a collection or a field it cannot read depends on it (application/items/parse-as-caller.ts).
 * - `crossed`: the path that crosses a relation (`shipment.customer`) and its hop, before any name on the
 *   other side is looked up;
 * - `named`: the path of a field (`shipment.customer.vip`), its collection and name, once the field is
 *   known to exist and before its type decides anything (operators, values, `json()`, sorting, aggregates).
 */
export type QueryWitness = {
  readonly crossed: (path: string, hop: RelationalHop) => void;
  readonly named: (path: string, collection: CollectionSchema, field: string) => void;
};

/** `witness` for the paths below `path` (a `deep` entry's filter and sort), which it names from the top. */
export function witnessBelow(witness: QueryWitness, path: string): QueryWitness {
  return {
    crossed: (inner, hop) => witness.crossed(`${path}.${inner}`, hop),
    named: (inner, collection, field) => witness.named(`${path}.${inner}`, collection, field),
  };
}

/** `query.maxRelationalDepth`'s default. */
export const DEFAULT_MAX_RELATIONAL_DEPTH = 3;

/**
 * The hop `key` names from `collection`: its foreign-key field (many-to-one) or a one-to-many alias; none
 * when it names neither, or when the collection at the other end is not one the snapshot serves.
 */
export function hopOf(
  schema: SchemaSnapshot,
  collection: CollectionSchema,
  key: string,
): RelationalHop | undefined {
  const manyToOne = manyToOneOf(schema, collection.name, key);
  if (manyToOne) {
    const target = schema.collections.get(manyToOne.relatedCollection);
    return target && { key, direction: 'many-to-one', relation: manyToOne, collection: target };
  }
  const oneToMany = oneToManyOf(schema, collection.name, key);
  if (!oneToMany) return undefined;
  const target = schema.collections.get(oneToMany.collection);
  return target && { key, direction: 'one-to-many', relation: oneToMany, collection: target };
}
