/**
 * Strict parsing of the date and time texts the API accepts, into the canonical forms of filter.ts.
 * Stricter than PostgreSQL on purpose (no `24:00`, no leap seconds, no BC or five-digit years, at most
 * microseconds): whatever we accept PostgreSQL accepts too and reads the same way.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ]([\d:.]{5,15})(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

type CalendarDate = { readonly year: number; readonly month: number; readonly day: number };
type ClockTime = {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Fractional second digits without trailing zeros ('' for none). */
  readonly fraction: string;
};

function parseDate(text: string): CalendarDate | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parseTime(text: string): ClockTime | null {
  const match = TIME.exec(text);
  if (!match) return null;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3] ?? '0')];
  if (hour > 23 || minute > 59 || second > 59) return null;
  return { hour, minute, second, fraction: (match[4] ?? '').replace(/0+$/, '') };
}

/** `Z`, `+hh`, `+hhmm`, `+hh:mm` → minutes east of UTC. PostgreSQL accepts offsets up to ±15:59. */
function parseOffset(text: string): number | null {
  if (text === 'Z') return 0;
  const digits = text.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 15 || minutes > 59) return null;
  return (text.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function formatDate({ year, month, day }: CalendarDate): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

function formatTime({ hour, minute, second, fraction }: ClockTime): string {
  return `${pad(hour)}:${pad(minute)}:${pad(second)}${fraction ? `.${fraction}` : ''}`;
}

/** `YYYY-MM-DD` → itself, when it is a real calendar date. */
export function canonicalDate(text: string): string | null {
  const date = parseDate(text);
  return date ? formatDate(date) : null;
}

/** `hh:mm[:ss[.ffffff]]` → `hh:mm:ss[.ffffff]`. */
export function canonicalTime(text: string): string | null {
  const time = parseTime(text);
  return time ? formatTime(time) : null;
}

type LocalDateTime = {
  readonly date: CalendarDate;
  readonly time: ClockTime;
  readonly offset: number | null;
};

/** `YYYY-MM-DD[(T| )hh:mm[:ss[.ffffff]][offset]]`; a date alone means midnight. */
function parseDateTime(text: string): LocalDateTime | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const date = parseDate(match[1]!);
  const time = match[2] === undefined ? parseTime('00:00') : parseTime(match[2]);
  const offset = match[3] === undefined ? null : parseOffset(match[3]);
  if (!date || !time || (match[3] !== undefined && offset === null)) return null;
  return { date, time, offset };
}

/**
 * `timestamp without time zone`: a wall-clock reading. An offset is refused rather than dropped
 * (PostgreSQL silently ignores it, which would make `…Z` and `…+02:00` mean the same instant).
 */
export function canonicalTimestamp(text: string): string | null {
  const parsed = parseDateTime(text);
  if (!parsed || parsed.offset !== null) return null;
  return `${formatDate(parsed.date)}T${formatTime(parsed.time)}`;
}

/**
 * `timestamp with time zone`: an instant, returned in UTC (`+00:00`) so that texts compare as instants.
 * Without an offset the reading is taken as UTC — never as the server's zone, which would make a query
 * mean different things on different servers.
 */
export function canonicalDateTime(text: string): string | null {
  const parsed = parseDateTime(text);
  if (!parsed) return null;
  const { date, time, offset } = parsed;
  const instant = new Date(0);
  instant.setUTCFullYear(date.year, date.month - 1, date.day);
  instant.setUTCHours(time.hour, time.minute - (offset ?? 0), time.second, 0);
  const utcDate = {
    year: instant.getUTCFullYear(),
    month: instant.getUTCMonth() + 1,
    day: instant.getUTCDate(),
  };
  if (utcDate.year < 1 || utcDate.year > 9999) return null;
  const utcTime = {
    hour: instant.getUTCHours(),
    minute: instant.getUTCMinutes(),
    second: instant.getUTCSeconds(),
    fraction: time.fraction,
  };
  return `${formatDate(utcDate)}T${formatTime(utcTime)}+00:00`;
}

/** The server's local wall-clock reading of an instant, in the seed format (`YYYY-MM-DDThh:mm:ss`). */
export function localTimestamp(instant: Date): string {
  return `${localDate(instant)}T${localTime(instant)}`;
}

export function localDate(instant: Date): string {
  return formatDate({ year: instant.getFullYear(), month: instant.getMonth() + 1, day: instant.getDate() });
}

export function localTime(instant: Date): string {
  return formatTime({
    hour: instant.getHours(),
    minute: instant.getMinutes(),
    second: instant.getSeconds(),
    fraction: '',
  });
}
