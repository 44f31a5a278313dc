/**
 * A component name for each collection, unique in the document. Component names allow only
 * `[A-Za-z0-9._-]` while a table made by hand may be named anything; `.` is left out too, so the
 * `<name>.Item` schemas of two collections can never collide.
 */
export function componentNames(collections: ReadonlyArray<string>): Map<string, string> {
  const used = new Set<string>();
  const names = new Map<string, string>();
  for (const collection of collections) {
    const base = collection.replace(/[^A-Za-z0-9_-]/g, '_');
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    names.set(collection, name);
  }
  return names;
}
