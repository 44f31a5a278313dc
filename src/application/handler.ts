import type { Accountability } from '../domain/accountability.ts';

/**
 * The one shape of every command and query handler: who asks, and what, as one object. One shape lets a
 * concern that applies to every handler (timing, tracing, audit) wrap any of them in one place.
 * `Request` is `void` for a query that needs nothing but its caller, called as `execute(caller)`.
 * `Caller` is `null` where nobody is known yet or nobody needs to be: logging in, refreshing, logging out,
 * resolving a token, the public health probe, and the operator's set-up work.
 */
export type Handler<Request, Result, Caller extends Accountability | null = Accountability> = {
  execute(caller: Caller, request: Request): Promise<Result>;
};
