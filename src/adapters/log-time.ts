/**
 * pino's ISO timestamp (`,"time":"2026-11-28T05:00:00.000Z"`, as `pino.stdTimeFunctions.isoTime` writes it),
 * formatted once per millisecond and its date once per second: a busy server writes several lines a
 * millisecond, and V8 formats a `Date` with seven C `snprintf`s, ~7 thousand instructions (bench/NOTES.md §7.8).
 */
export function isoTimeOncePerMillisecond(now: () => number = Date.now): () => string {
  let second = Number.NaN;
  let upToSecond = '';
  let formattedAt = Number.NaN;
  let formatted = '';
  return () => {
    const ms = now();
    if (ms !== formattedAt) {
      formattedAt = ms;
      const start = Math.floor(ms / 1000) * 1000;
      if (start !== second) {
        second = start;
        // Everything before the milliseconds, whatever the year's width: the text always ends `.000Z`.
        upToSecond = `,"time":"${new Date(start).toISOString().slice(0, -4)}`;
      }
      formatted = `${upToSecond}${String(ms - start).padStart(3, '0')}Z"`;
    }
    return formatted;
  };
}
