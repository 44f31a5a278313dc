import type { Authenticated } from '../authenticated.ts';
import type { HttpHandlers } from '../http-app-dependencies.ts';
import type { JsonBodyReader } from '../json-body.ts';
import type { Respond } from '../respond.ts';

/** What every route module gets: the handlers it calls and the adapter's shared request/response tools. */
export type RouteKit = {
  handlers: HttpHandlers;
  readBody: JsonBodyReader;
  authenticated: Authenticated;
  respond: Respond;
};
