import type { HttpContext } from './http-state.ts';

/**
 * Sets a JSON answer as its text, as Koa would for an object, with its header unless one is set already.
 * Koa serialises an object only after testing it against the web-stream and fetch classes
 * (`ReadableStream`, `Response`), whose first use loads Node's fetch implementation: ~30–50 ms of CPU on
 * the first answer after every start, /server/health's included (decision 0045). `null` and `undefined`
 * stay Koa's to answer (no body).
 */
export function setJsonBody(ctx: HttpContext, value: unknown): void {
  if (value === null || value === undefined) {
    ctx.body = value;
    return;
  }
  if (!ctx.response.get('Content-Type')) ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = JSON.stringify(value);
}
