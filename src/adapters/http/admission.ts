import type { Readiness } from '../../application/server/readiness.ts';
import type { HttpContext } from './http-state.ts';
import { assertQueryLength } from './query-length-limit.ts';
import { assertReady } from './readiness-gate.ts';
import { assertWellFormedInput } from './well-formed-input.ts';

/** Throws the contract's error for a request that may not be routed. */
export type Admission = (ctx: HttpContext) => void;

/**
 * What every request must pass before routing, in this order: a query string within bounds (refused before
 * anything parses it), well-formed text in the path, query and headers, a server ready to serve.
 */
export function admission(maxQueryLength: number, readiness: Readiness): Admission {
  return (ctx) => {
    assertQueryLength(ctx, maxQueryLength);
    assertWellFormedInput(ctx);
    assertReady(ctx, readiness);
  };
}
