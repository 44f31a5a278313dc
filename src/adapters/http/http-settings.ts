import type { CallerConcurrencySettings } from './caller-concurrency-limit.ts';
import type { CorsSettings } from './cors.ts';

export type HttpSettings = {
  profile: 'plain' | 'directus';
  /** Access-token lifetime: the directus profile answers it as `expires`. */
  accessTokenTtlMs: number;
  /** Largest JSON body accepted, in koa-bodyparser's notation (`1mb`) or bytes. */
  bodyLimit: string | number;
  allowQueryToken: boolean;
  /** Bytes of query string accepted (docs/api.md §4a); longer is 414. */
  maxQueryLength: number;
  /** Take the client address from `X-Forwarded-For` (Koa's `proxy`). */
  trustProxy: boolean;
  cors: CorsSettings;
  /** Each caller's share of the requests served at once (`limits.perCaller`). */
  perCaller: CallerConcurrencySettings;
};
