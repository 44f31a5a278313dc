import pino, { type Logger } from 'pino';

/** What a line says of its request. */
export type LoggedRequest = {
  state: { requestId: string };
  method: string;
  path: string;
  status: number;
};

/** Writes one request's line; `ms` is how long the server took. */
export type AccessLog = (request: LoggedRequest, ms: number) => void;

const symbols = pino.symbols;

/** The parts of a pino logger its own line is made of (`pino.symbols`, pino's integration interface). */
type LoggerParts = {
  [symbols.streamSym]: { write(line: string): unknown };
  [symbols.timeSym]: () => string;
  [symbols.chindingsSym]: string;
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.endSym]: string;
  [symbols.messageKeySym]: string;
  [symbols.mixinSym]: unknown;
  [symbols.formattersSym]: { log?: unknown };
};

/**
 * One line per request into `logger`'s destination, the line `logger.info(fields, 'request')` writes. The
 * path is logged without its query string: `?access_token=` is a secret, and filters may hold personal data.
 *
 * Built here from the logger's own parts (its level label, time, bindings — a worker's `worker` and `pid` —,
 * message key and line end) rather than by pino's generic formatting: the line's fields are known, and
 * pino's walk over them cost ~10 thousand instructions a request (bench/NOTES.md §7.9). A logger that
 * rewrites its lines (a mixin, a log formatter) is left to write them itself.
 */
export function accessLogOf(logger: Logger): AccessLog {
  const parts = logger as unknown as LoggerParts;
  if (parts[symbols.mixinSym] || parts[symbols.formattersSym].log) {
    return (request, ms) => logger.info(fields(request, ms), 'request');
  }
  const info = logger.levels.values.info!;
  const message = `,${JSON.stringify(parts[symbols.messageKeySym])}:"request"`;
  return (request, ms) => {
    if (logger.levelVal > info) return;
    parts[symbols.streamSym].write(
      `${parts[symbols.lsCacheSym][info]}${parts[symbols.timeSym]()}${parts[symbols.chindingsSym]},"requestId":${JSON.stringify(request.state.requestId)},"method":${JSON.stringify(request.method)},"path":${JSON.stringify(request.path)},"status":${request.status},"ms":${roundedMs(ms)}${message}${parts[symbols.endSym]}`,
    );
  };
}

function fields(request: LoggedRequest, ms: number) {
  return {
    requestId: request.state.requestId,
    method: request.method,
    path: request.path,
    status: request.status,
    ms: roundedMs(ms),
  };
}

function roundedMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}
