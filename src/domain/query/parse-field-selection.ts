import type { CollectionSchema } from '../schema/collection-schema.ts';
import { fieldOf } from '../schema/collection-schema.ts';
import { manyToOnesOf, oneToManysOf } from '../schema/relations-of.ts';
import { hopOf, type RelationalContext } from './hop-of.ts';
import { describeInput, invalidQuery } from './invalid-query.ts';
import type { FieldSelection, NestedPage, NestedSelection, SelectedName } from './item-query.ts';
import type { RelationalHop } from './relational-hop.ts';

/** How one `deep[<relation>]` entry's options are read; given by parse-item-query.ts. */
export type NestedPageParser = (
  raw: Readonly<Record<string, unknown>>,
  hop: RelationalHop,
  path: string,
) => NestedPage;

/**
 * One collection's part of `fields` while it is being read: names in the order first asked for, the
 * widest wildcard asked (`*` is 1, `*.*` is 2…), and the relations below.
 */
class Level {
  readonly names: SelectedName[] = [];
  private readonly named = new Set<string>();
  star = 0;
  readonly relations = new Map<string, Branch>();

  constructor(
    readonly collection: CollectionSchema,
    /** Hops from the collection read to this one. */
    readonly depth: number,
    /** The dotted path that reached this level, for messages. */
    readonly path: string,
  ) {}

  name(entry: string) {
    if (this.named.has(entry)) return;
    this.named.add(entry);
    this.names.push(entry);
  }

  nameFirst(entry: string) {
    if (this.named.has(entry)) return;
    this.named.add(entry);
    this.names.unshift(entry);
  }

  branch(hop: RelationalHop): Branch {
    let branch = this.relations.get(hop.key);
    if (!branch) {
      const path = this.path === '' ? hop.key : `${this.path}.${hop.key}`;
      branch = { hop, level: new Level(hop.collection, this.depth + 1, path), explicit: false };
      this.relations.set(hop.key, branch);
    }
    return branch;
  }
}

type Branch = { readonly hop: RelationalHop; readonly level: Level; explicit: boolean };

/**
 * The relational `fields` of docs/api.md §4 as a tree: `shipment.number` (many-to-one), `cargos.*`
 * (one-to-many), `cargos` alone (the related rows' keys), and `*.*`, `*.*.*`… (every relation one level
 * further, each with its own columns). `*` alone stays the collection's own columns. At most
 * `maxHops` hops per path, wildcards included (MAX_DEPTH beyond). `deep` sets the pages of the
 * one-to-many relations selected (`deep` on one not selected, or options on a many-to-one, are refused).
 */
export function parseFieldSelection(
  entries: ReadonlyArray<SelectedName>,
  collection: CollectionSchema,
  relations: RelationalContext,
  deep: Readonly<Record<string, unknown>> | undefined,
  pageOf: NestedPageParser,
): FieldSelection {
  const root = new Level(collection, 0, '');
  for (const entry of entries) {
    if (typeof entry !== 'string') root.names.push(entry);
    else add(root, entry.split('.'), entry, relations);
  }
  return finish(root, relations, deep, pageOf);
}

function add(level: Level, segments: ReadonlyArray<string>, entry: string, relations: RelationalContext) {
  const [first, ...rest] = segments as [string, ...string[]];
  if (first === '*') {
    if (rest.some((segment) => segment !== '*')) {
      throw invalidQuery(
        `${describeInput(entry)} in "fields": a wildcard can only be followed by wildcards.`,
        {
          reason: 'INVALID_VALUE',
        },
      );
    }
    assertDepth(level.depth + rest.length, entry, relations);
    level.star = Math.max(level.star, segments.length);
    level.name('*');
    return;
  }
  const hop = hopOf(relations.schema, level.collection, first);
  if (rest.length === 0) {
    if (hop?.direction === 'one-to-many') level.branch(hop).explicit = true;
    else if (!fieldOf(level.collection, first)) throw unknownField(entry, first);
    level.name(first);
    return;
  }
  if (!hop) {
    if (!fieldOf(level.collection, first)) throw unknownField(entry, first);
    // Whether a field is a relation is told only to a caller who may read it.
    relations.witness?.named(level.path === '' ? first : `${level.path}.${first}`, level.collection, first);
    throw invalidQuery(`${describeInput(entry)} in "fields": "${first}" is not a relation.`, {
      field: first,
      reason: 'UNKNOWN_FIELD',
    });
  }
  assertDepth(level.depth + 1, entry, relations);
  const branch = level.branch(hop);
  branch.explicit = true;
  level.name(first);
  relations.witness?.crossed(branch.level.path, hop);
  add(branch.level, rest, entry, relations);
}

function finish(
  level: Level,
  relations: RelationalContext,
  deep: Readonly<Record<string, unknown>> | undefined,
  pageOf: NestedPageParser,
): FieldSelection {
  if (level.star > 1) {
    const hops = [...manyToOnesOf(relations.schema, level.collection.name).keys()]
      .concat([...oneToManysOf(relations.schema, level.collection.name).keys()])
      .flatMap((key) => hopOf(relations.schema, level.collection, key) ?? []);
    for (const hop of hops) {
      const child = level.branch(hop).level;
      child.star = Math.max(child.star, level.star - 1);
      child.nameFirst('*');
    }
  }
  const deepOptions = deep ?? {};
  for (const key of Object.keys(deepOptions)) {
    if (level.relations.has(key)) continue;
    throw invalidQuery(
      `"deep" names ${describeInput(level.path === '' ? key : `${level.path}.${key}`)}, which "fields" does not expand.`,
      { reason: 'INVALID_VALUE' },
    );
  }
  const nested = new Map<string, NestedSelection>();
  for (const [key, branch] of level.relations) {
    const raw = Object.hasOwn(deepOptions, key) ? deepOptions[key] : undefined;
    if (raw !== undefined) relations.witness?.crossed(branch.level.path, branch.hop);
    const options = raw === undefined ? {} : deepEntry(raw, branch.level.path);
    // Entries, not assignments: a key named `__proto__` must stay a key (and be refused).
    const entries = Object.entries(options);
    const own = Object.fromEntries(entries.filter(([name]) => name.startsWith('_')));
    const below = Object.fromEntries(entries.filter(([name]) => !name.startsWith('_')));
    const oneToMany = branch.hop.direction === 'one-to-many';
    if (!oneToMany && Object.keys(own).length > 0) {
      throw invalidQuery(
        `"deep" on ${describeInput(branch.level.path)}: a many-to-one relation has one row, nothing to page.`,
        { reason: 'INVALID_VALUE' },
      );
    }
    const keysOnly = oneToMany && branch.level.names.length === 0;
    if (keysOnly && branch.hop.collection.primaryKey === null) {
      throw invalidQuery(
        `${describeInput(branch.level.path)} in "fields": collection "${branch.hop.collection.name}" has no primary key to list; name its fields.`,
        { reason: 'INVALID_VALUE' },
      );
    }
    const selection = finish(branch.level, relations, below, pageOf);
    nested.set(key, {
      ...selection,
      hop: branch.hop,
      implicit: !branch.explicit,
      namedByDeep: raw !== undefined,
      keysOnly,
      ...(oneToMany ? { page: pageOf(own, branch.hop, branch.level.path) } : {}),
    });
  }
  const names = level.names;
  const fields = names.length === 1 && names[0] === '*' ? '*' : names;
  return nested.size === 0 ? { fields } : { fields, relations: nested };
}

function deepEntry(raw: unknown, path: string): Readonly<Record<string, unknown>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalidQuery(`"deep" on ${describeInput(path)} must be an object of options.`, {
      reason: 'INVALID_VALUE',
    });
  }
  return raw as Record<string, unknown>;
}

function assertDepth(hops: number, entry: string, relations: RelationalContext) {
  if (hops > relations.maxHops) {
    throw invalidQuery(
      `${describeInput(entry)} in "fields" goes deeper than ${relations.maxHops} relations.`,
      { reason: 'MAX_DEPTH' },
    );
  }
}

function unknownField(entry: string, name: string) {
  return invalidQuery(`Unknown field ${describeInput(entry)} in "fields".`, {
    field: name.slice(0, 64),
    reason: 'UNKNOWN_FIELD',
  });
}
