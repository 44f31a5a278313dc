/** The map's value for `key`, made by `create` and kept there when it has none yet. */
export function entryOf<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const created = create();
  map.set(key, created);
  return created;
}
