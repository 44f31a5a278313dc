import bodyParser from 'koa-bodyparser';
import type { ZodError, ZodType, z } from 'zod';
import { invalidPayload } from '../../domain/errors.ts';
import { requestTooLarge, unsupportedMediaType } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';

/** Reads the request body as JSON and checks it against the route's wire shape. */
export type JsonBodyReader = <S extends ZodType>(ctx: HttpContext, schema: S) => Promise<z.output<S>>;

/**
 * Bodies are read by the routes that take one, not by a global middleware: a route without a body
 * ignores whatever was sent, and an unknown route answers 404 whatever its body looks like.
 */
export function jsonBodyReader(limit: string | number): JsonBodyReader {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: String(limit),
    // Only arrays and objects: a bare `"text"` or `1` is never a valid payload here.
    strict: true,
    // The media type is checked below (also accepting any `+json` type), so parse unconditionally.
    detectJSON: () => true,
  });
  return async (ctx, schema) => {
    if (!hasBody(ctx)) throw invalidPayload('A JSON body is required.');
    if (!ctx.request.is('application/json', '+json')) throw unsupportedMediaType();
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      throw readFailure(error);
    }
    // Chunked bodies announce no length, so an empty one is only known after reading.
    if (!ctx.request.rawBody?.trim()) throw invalidPayload('A JSON body is required.');
    const result = schema.safeParse(ctx.request.body);
    if (!result.success) throw payloadError(result.error);
    return result.data;
  };
}

function hasBody(ctx: HttpContext): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

/** koa-bodyparser reports through http-errors statuses (co-body / raw-body); map them to the contract. */
function readFailure(error: unknown): unknown {
  const status = error instanceof Error && 'status' in error ? error.status : undefined;
  if (status === 413) return requestTooLarge();
  // Unsupported Content-Encoding or charset.
  if (status === 415) return unsupportedMediaType();
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return invalidPayload('Request body is not valid JSON.');
  }
  return error;
}

function payloadError(error: ZodError): Error {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]].join('.');
    return invalidPayload(`Unknown field "${field}".`, field);
  }
  const field = issue.path.join('.');
  return field
    ? invalidPayload(`Invalid "${field}": ${issue.message}`, field)
    : invalidPayload(issue.message);
}
