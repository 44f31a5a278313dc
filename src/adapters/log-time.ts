/**
 * pino's ISO timestamp (`,"time":"2026-11-28T05:00:00.000Z"`, as `pino.stdTimeFunctions.isoTime` writes it),
 * formatted once per millisecond: a busy server writes several lines a millisecond, and each format is a
 * `Date` and a C `snprintf` (bench/NOTES.md §7.8).
 */
export function isoTimeOncePerMillisecond(now: () => number = Date.now): () => string {
  let formattedAt = Number.NaN;
  let formatted = '';
  return () => {
    const ms = now();
    if (ms !== formattedAt) {
      formattedAt = ms;
      formatted = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return formatted;
  };
}
