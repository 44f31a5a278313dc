import { createRequire } from 'node:module';
import type bodyParserOf from 'koa-bodyparser';
import type { ZodError, ZodType, z } from 'zod';
import { invalidPayload } from '../../domain/errors.ts';
import { hasProtoKey } from '../../domain/proto-key.ts';
import { findTextFlaw, flawedTextError, jsonMayHoldFlawedText } from '../../domain/well-formed-text.ts';
import { MAX_JSON_DEPTH, nestingDepth, PROTO_KEY } from '../json-text-checks.ts';
import { requestTooLarge, unsupportedMediaType } from './http-problem.ts';
import type { HttpContext } from './http-state.ts';
import { payloadIssueMessage } from './payload-issue-message.ts';
import { namesUtf8 } from './utf8-charset.ts';

/** Reads the request body as JSON and checks it against the route's wire shape. */
export type JsonBodyReader = <S extends ZodType>(ctx: HttpContext, schema: S) => Promise<z.output<S>>;

/**
 * Bodies are read by the routes that take one, not by a global middleware: a route without a body
 * ignores whatever was sent, and an unknown route answers 404 whatever its body looks like.
 */
export function jsonBodyReader(limit: string | number): JsonBodyReader {
  // Read as text, one character per byte ('latin1'), and decoded below: the parser's own UTF-8 decoding
  // would turn invalid bytes into U+FFFD silently, storing text the client never sent.
  let read: ReturnType<typeof bodyParserOf> | undefined;
  return async (ctx, schema) => {
    if (!hasBody(ctx)) throw invalidPayload('A JSON body is required.');
    if (!ctx.request.is('application/json', '+json')) throw unsupportedMediaType();
    // The bytes are decoded as UTF-8 below whatever was declared: another charset would be misread
    // (docs/decisions/0070).
    const { charset } = ctx.request;
    if (charset !== '' && !namesUtf8(charset)) {
      throw unsupportedMediaType(
        'Request body must be UTF-8 (Content-Type: application/json; charset=utf-8, or no charset).',
      );
    }
    read ??= loadBodyParser()({
      enableTypes: ['text'],
      // The media type is checked above (also accepting any `+json` type); these only route it to `text`.
      extendTypes: { text: ['application/json', '+json'] },
      textLimit: String(limit),
      encoding: 'latin1',
    });
    try {
      await read(ctx, async () => {});
    } catch (error) {
      throw readFailure(error, ctx);
    }
    const body = parseJsonBytes(ctx.request.rawBody ?? '');
    ctx.request.body = body;
    const result = schema.safeParse(body, { error: payloadIssueMessage });
    if (!result.success) throw payloadError(result.error);
    return result.data;
  };
}

const require = createRequire(import.meta.url);

/**
 * koa-bodyparser and what it reads with (co-body, raw-body, inflation, iconv-lite: ~45 ms of CPU to load) are
 * loaded by the first request with a body, not by every start: reads need none of it.
 */
function loadBodyParser(): typeof bodyParserOf {
  return require('koa-bodyparser') as typeof bodyParserOf;
}

/** `fatal`: invalid UTF-8 is an error (RFC 8259 §8.1), not U+FFFD; a leading BOM is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** Only arrays and objects: a bare `"text"` or `1` is never a valid payload here. */
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** The body's bytes (as latin1 text) → JSON: strict UTF-8, objects and arrays only, no `__proto__` keys. */
function parseJsonBytes(bytes: string): unknown {
  let text: string;
  try {
    text = UTF8.decode(Buffer.from(bytes, 'latin1'));
  } catch {
    throw invalidPayload('Request body is not valid UTF-8.');
  }
  // Chunked bodies announce no length, so an empty one is only known after reading.
  if (!text.trim()) throw invalidPayload('A JSON body is required.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidPayload('Request body is not valid JSON.');
  }
  if (!OBJECT_OR_ARRAY.test(text)) throw invalidPayload('Request body must be a JSON object or array.');
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw invalidPayload(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  // Valid JSON, so the message names the key rather than calling the text malformed.
  if (PROTO_KEY.test(text) && hasProtoKey(parsed)) {
    throw invalidPayload('Request body must not hold a "__proto__" key.');
  }
  const flawed = jsonMayHoldFlawedText(text) ? findTextFlaw(parsed) : null;
  if (flawed) throw flawedTextError(flawed);
  return parsed;
}

/** The request announces a body (a length above 0, or chunks): for routes where one is optional. */
export function hasBody(ctx: HttpContext): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

/** What koa-bodyparser (through inflation) decompresses; any other Content-Encoding is answered 415. */
const DECOMPRESSED = new Set(['gzip', 'deflate', 'br']);

/** koa-bodyparser reports through http-errors statuses (co-body / raw-body); map them to the contract. */
function readFailure(error: unknown, ctx: HttpContext): unknown {
  const status = error instanceof Error && 'status' in error ? error.status : undefined;
  // Only the decompressor stands between the socket and raw-body, and zlib's errors carry no status.
  const encoding = ctx.get('Content-Encoding');
  if (status === undefined && DECOMPRESSED.has(encoding)) {
    return invalidPayload(`Request body is not valid ${encoding} data.`);
  }
  if (status === 413) return requestTooLarge();
  // A request whose client left while it waited for its turn (the per-caller queue) has nothing left to
  // read: raw-body calls that a 500, but nothing failed here, and nobody is left to answer either.
  if (ctx.req.destroyed && errorType(error) === 'stream.not.readable') {
    return invalidPayload('The request body could not be read: the client closed the connection.');
  }
  // The charset was checked before reading: only the Content-Encoding is left for inflation to refuse.
  if (status === 415) {
    return unsupportedMediaType(
      'Request body must be sent without Content-Encoding, or in gzip, deflate or br.',
    );
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return invalidPayload('Request body is not valid JSON.');
  }
  return error;
}

function errorType(error: unknown): unknown {
  return error instanceof Error && 'type' in error ? error.type : undefined;
}

/** The first issue, in words of our own (payload-issue-message.ts) or of the route's schema (`mustBe`). */
function payloadError(error: ZodError): Error {
  const issue = error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
  return invalidPayload(issue.message, path.join('.') || undefined);
}
