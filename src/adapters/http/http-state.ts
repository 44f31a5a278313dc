import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Accountability } from '../../domain/accountability.ts';

/** What the middleware chain learns about one request, kept on `ctx.state`. */
export type HttpState = {
  requestId: string;
  /** The caller, set once by `authenticated` on the routes that need one. */
  caller?: Accountability;
};

export type HttpContext = ParameterizedContext<HttpState>;
export type HttpMiddleware = Middleware<HttpState>;
export type RouteContext = RouterContext<HttpState>;
export type RouteMiddleware = RouterMiddleware<HttpState>;
