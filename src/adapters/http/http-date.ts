const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** `Sun, 06 Nov 1994 08:49:37 GMT`: the preferred form. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`: obsolete, with a two-digit year. */
const RFC850_DATE = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`,
);
/** `Sun Nov  6 08:49:37 1994`: C's asctime(), obsolete; a one-digit day is padded with a space. */
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * An HTTP-date (RFC 9110 §5.6.7) in any of its three forms, which a recipient must all accept, or null for
 * anything else: the grammar is case-sensitive and allows no other spacing, no list, no zone but GMT.
 * `Date.parse` is not used: it takes almost any text (`2020`, `1 2 3`, two dates joined by a comma) for a
 * date, and a conditional request must ignore a field that is not one. `now` places a two-digit year.
 */
export function parseHttpDate(text: string, now: Date): Date | null {
  const imf = IMF_FIXDATE.exec(text);
  if (imf) return dateOf(Number(imf[3]), imf[2]!, Number(imf[1]), imf.slice(4, 7));
  const rfc850 = RFC850_DATE.exec(text);
  if (rfc850) {
    return dateOf(centuryOf(Number(rfc850[3]), now), rfc850[2]!, Number(rfc850[1]), rfc850.slice(4, 7));
  }
  const asctime = ASCTIME_DATE.exec(text);
  if (asctime) return dateOf(Number(asctime[6]), asctime[1]!, Number(asctime[2]), asctime.slice(3, 6));
  return null;
}

function dateOf(year: number, monthName: string, day: number, time: string[]): Date | null {
  const month = MONTHS.indexOf(monthName);
  const [hour, minute, second] = time.map(Number) as [number, number, number];
  // 60 is a leap second (RFC 5322 §3.3), read as the next minute's first.
  if (hour > 23 || minute > 59 || second > 60) return null;
  // setUTCFullYear, not Date.UTC: that reads years below 100 as 19xx. A day the month lacks (the 31st of
  // February) rolls into the next month, and is refused.
  const midnight = new Date(0);
  midnight.setUTCFullYear(year, month, day);
  if (midnight.getUTCMonth() !== month || midnight.getUTCDate() !== day) return null;
  return new Date(midnight.getTime() + ((hour * 60 + minute) * 60 + second) * 1000);
}

/**
 * RFC 9110 §5.6.7: a two-digit year that would lie more than 50 years in the future is the most recent
 * year in the past with those digits.
 */
function centuryOf(year: number, now: Date): number {
  const current = now.getUTCFullYear();
  const candidate = current - (current % 100) + year;
  return candidate > current + 50 ? candidate - 100 : candidate;
}
