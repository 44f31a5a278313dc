import type { Layer, Router } from '@koa/router';
import type { HttpState } from './http-state.ts';

type Routes = Router<HttpState>;
type Buckets = {
  readonly size: number;
  readonly bySegment: Map<string, Layer<HttpState>[]>;
  readonly rest: Layer<HttpState>[];
};

/** A first segment that is a word: anything else (a parameter, a pattern) may match any first segment. */
const FIXED_SEGMENT = /^\/([A-Za-z0-9._~-]*)(?:\/|$)/;

/**
 * @koa/router tests a request's path against every route it holds, in order (~80 here, each a regular
 * expression), on every request: the cost of routing grew with every route any area added. A route whose path
 * begins with a fixed segment (`/items/:collection`) can only match a path that begins with that segment
 * (the router is case-sensitive), so the router's own `match` is handed, for each request, only the routes
 * of the path's first segment and those that begin with a parameter, in their order: it finds what it found
 * before, among a handful. The buckets are made again if routes are added.
 */
export function matchBySegment(router: Routes): void {
  const match = router.match.bind(router);
  let buckets: Buckets | undefined;
  router.match = (path, method) => {
    const all = router.stack;
    if (buckets?.size !== all.length) buckets = bucketsOf(all);
    const segment = FIXED_SEGMENT.exec(path)?.[1];
    router.stack = (segment === undefined ? undefined : buckets.bySegment.get(segment)) ?? buckets.rest;
    try {
      return match(path, method);
    } finally {
      router.stack = all;
    }
  };
}

function bucketsOf(stack: Layer<HttpState>[]): Buckets {
  const bySegment = new Map<string, Layer<HttpState>[]>();
  const rest: Layer<HttpState>[] = [];
  for (const layer of stack) {
    const segment = typeof layer.path === 'string' ? FIXED_SEGMENT.exec(layer.path)?.[1] : undefined;
    if (segment !== undefined) {
      if (!bySegment.has(segment)) bySegment.set(segment, [...rest]);
      bySegment.get(segment)!.push(layer);
    } else {
      rest.push(layer);
      for (const layers of bySegment.values()) layers.push(layer);
    }
  }
  return { size: stack.length, bySegment, rest };
}
