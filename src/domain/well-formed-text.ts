import { invalidPayload } from './errors.ts';

/**
 * Why a text cannot be taken as given: PostgreSQL text and jsonb cannot hold a NUL character, and a lone
 * surrogate (half of a UTF-16 pair, which JSON's `\ud800` escape can make) has no UTF-8 form, so storing
 * it would silently turn it into U+FFFD. docs/api.md §4a: such text is refused, never altered.
 */
export type TextFlaw = 'a NUL character' | 'a lone surrogate';

/** With the `u` flag a pair is one code point, so only a surrogate standing alone matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

export function textFlaw(text: string): TextFlaw | null {
  if (text.includes('\u0000')) return 'a NUL character';
  return LONE_SURROGATE.test(text) ? 'a lone surrogate' : null;
}

/**
 * Whether JSON text may hold a NUL or a lone surrogate once parsed: only as an escape (`\u0000`, `\ud800`),
 * since JSON.parse refuses a raw control character and strict UTF-8 decoding an encoded surrogate. A cheap
 * test before walking a parsed value.
 */
export function jsonMayHoldFlawedText(json: string): boolean {
  return FLAWED_TEXT_ESCAPE.test(json);
}

const FLAWED_TEXT_ESCAPE = /\\u(?:0000|[Dd][89A-Fa-f])/;

/** Where in a JSON value a flawed text sits: the keys and indexes leading to it, the last one its own key when `inKey`. */
export type TextFlawAt = {
  readonly flaw: TextFlaw;
  readonly path: ReadonlyArray<string | number>;
  readonly inKey: boolean;
};

/** One value still to look at, linked to its parent so that a path is built only for the flaw found. */
type Visit = { readonly node: unknown; readonly key: string | number | null; readonly parent: Visit | null };

/**
 * The first flawed string or key in a parsed JSON value, or null. Iterative, so that depth costs no stack;
 * callers bound the depth and size before.
 */
export function findTextFlaw(value: unknown): TextFlawAt | null {
  const pending: Visit[] = [{ node: value, key: null, parent: null }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { node } = visit;
    if (typeof node === 'string') {
      const flaw = textFlaw(node);
      if (flaw) return { flaw, path: pathTo(visit), inKey: false };
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) {
        pending.push({ node: node[index], key: index, parent: visit });
      }
    } else if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node);
      for (const key of keys) {
        const flaw = textFlaw(key);
        if (flaw) return { flaw, path: [...pathTo(visit), key], inKey: true };
      }
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index]!;
        pending.push({ node: (node as Record<string, unknown>)[key], key, parent: visit });
      }
    }
  }
  return null;
}

function pathTo(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at?.key != null; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * A path as `extensions.field` names it (`0.description`, as for every other payload error), each key
 * shown with a NUL or lone surrogate escaped (`\u0000`), so that the answer and the log stay plain text.
 */
export function describeTextPath(path: ReadonlyArray<string | number>): string {
  return path
    .map((segment) => (typeof segment === 'number' ? String(segment) : escapedText(segment)))
    .join('.');
}

/** The text with control characters and lone surrogates written as JSON escapes. */
export function escapedText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** docs/api.md §4a: a key or string of a client's JSON holding what UTF-8 text cannot, named by its path. */
export function flawedTextError({ flaw, path, inKey }: TextFlawAt): Error {
  const field = describeTextPath(path);
  return invalidPayload(`${inKey ? 'The key' : 'The value of'} "${field}" contains ${flaw}.`, field);
}
