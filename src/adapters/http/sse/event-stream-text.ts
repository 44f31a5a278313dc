/**
 * The text/event-stream framing (WHATWG HTML §9.2): a message is `field: value` lines ended by a blank
 * line. A value may not hold a line break, so each line of `data` becomes its own `data:` line, which the
 * client joins back with `\n`.
 */
export function eventText(event: string, id: string | null, data: string): string {
  // `id:` with no value resets the client's last event id: it then reconnects without Last-Event-ID.
  const idLine = id === null ? '' : `id: ${id}\n`;
  const dataLines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `event: ${event}\n${idLine}${dataLines}\n`;
}

/** A comment line: ignored by clients, it keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_TEXT = ': ping\n\n';

/** How long a client waits before reconnecting once the stream is lost. */
export function retryText(retryMs: number): string {
  return `retry: ${retryMs}\n\n`;
}
