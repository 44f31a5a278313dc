import type { CollectionSchema } from './collection-schema.ts';
import { fitsIdentifier } from './identifier-bytes.ts';
import type { Relation } from './relation.ts';

/**
 * A relation before its one-to-many side is named, with the name an admin chose for it, if any (kept with
 * the constraint itself: docs/decisions/0026).
 */
export type UnnamedRelation = Omit<Relation, 'oneField'> & { readonly chosenOneField?: string | null };

/**
 * Names each relation's one-to-many side (`Relation.oneField`), from the database alone: the name chosen
 * for it when created (`chosenOneField`), else the referring collection's name (`shipments` reads its
 * `cargos`), or `<collection>_<field>` when that collection refers to the same one by several foreign keys
 * (`cargos_origin`, `cargos_destination`). A name that is taken —
 * by a column of the referred collection, or by another relation's name — is given to none of them
 * (null): an ambiguous name must not pick one at random, and a column always keeps its own name. So is a
 * name longer than 63 bytes (a long collection's `<collection>_<field>`): a nested read answers under a
 * column alias, which PostgreSQL would cut, so the answer's key would not be the name asked for.
 */
export function withOneFields(
  relations: ReadonlyArray<UnnamedRelation>,
  collections: ReadonlyMap<string, CollectionSchema>,
): Relation[] {
  const referrers = new Map<string, number>();
  for (const relation of relations) {
    const pair = `${relation.relatedCollection}\u0000${relation.collection}`;
    referrers.set(pair, (referrers.get(pair) ?? 0) + 1);
  }
  const proposed = relations.map(
    (relation) =>
      relation.chosenOneField ??
      (referrers.get(`${relation.relatedCollection}\u0000${relation.collection}`) === 1
        ? relation.collection
        : `${relation.collection}_${relation.field}`),
  );
  const uses = new Map<string, number>();
  relations.forEach((relation, index) => {
    const key = `${relation.relatedCollection}\u0000${proposed[index]}`;
    uses.set(key, (uses.get(key) ?? 0) + 1);
  });
  return relations.map((relation, index) => {
    const name = proposed[index]!;
    const withheld =
      !fitsIdentifier(name) ||
      uses.get(`${relation.relatedCollection}\u0000${name}`)! > 1 ||
      (collections.get(relation.relatedCollection)?.fields.some((field) => field.name === name) ?? true);
    const { chosenOneField: _chosen, ...named } = relation;
    return { ...named, oneField: withheld ? null : name };
  });
}
