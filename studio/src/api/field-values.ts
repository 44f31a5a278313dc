import type { FieldShape } from './field-shape.ts';
import { isNonFinite } from './non-finite-numbers.ts';

/**
 * What an editor's input holds for one field: its text, or null. Booleans hold `true`/`false`, JSON its
 * text. Kept apart from the value so that what the user typed survives until it is sent.
 */
export type Draft = {
  text: string;
  isNull: boolean;
  /**
   * The input holds text its type cannot read (`12e` in a number input), which it reports as '': sent as
   * that '', it would have written null over the value.
   */
  unreadable?: true;
};

/** A draft made into the value the API takes, or why it cannot be. */
export type Converted = { value: unknown } | { problem: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d\d-\d\d$/;
/** `hh:mm`, `hh:mm:ss`, `hh:mm:ss.fff`: what a time input gives (seconds left out when they are 0). */
const TIME = /^(\d\d:\d\d)(?::(\d\d)(?:\.(\d+))?)?$/;
const INFINITE = /^-?infinity$/;
/** The offset of a zoned timestamp as the API answers it: always UTC (docs/api.md §4). */
const UTC = /(\+00:00|Z)$/;

/** What a value of a kind with a format of its own must look like, said when it does not. */
const EXPECTED = {
  integer: 'Enter a whole number.',
  number: 'Enter a number.',
  date: 'Enter a date, YYYY-MM-DD.',
  time: 'Enter a time, hh:mm:ss.',
  datetime: 'Enter a date and time, YYYY-MM-DDThh:mm:ss.',
  'zoned-datetime': 'Enter a date and time, YYYY-MM-DDThh:mm:ss.',
  uuid: 'Enter a UUID.',
} as const;

/** The draft of a value as the API answered it (or `undefined`, a new item's field nobody has set). */
export function draftOf(field: FieldShape, value: unknown): Draft {
  if (value === null) return { text: '', isNull: true };
  if (value === undefined) return { text: field.kind === 'boolean' ? 'false' : '', isNull: false };
  if (field.kind === 'json') return { text: JSON.stringify(value, null, 2), isNull: false };
  const text = String(value);
  if (field.kind === 'zoned-datetime' && UTC.test(text)) {
    return { text: text.replace(UTC, ''), isNull: false };
  }
  return { text, isNull: false };
}

/**
 * The value to send for a draft, in the forms the API takes (docs/api.md §4 "Value formats"). A time or a
 * date and time from an input loses its seconds when they are 0 (`08:00`: a "normalized" string, in the
 * HTML standard's words), so they are put back; a zoned timestamp is edited in UTC and sent with `+00:00`.
 */
export function apiValueOf(field: FieldShape, draft: Draft): Converted {
  if (draft.isNull) return { value: null };
  if (draft.unreadable)
    return {
      problem:
        field.kind in EXPECTED ? EXPECTED[field.kind as keyof typeof EXPECTED] : 'Enter a valid value.',
    };
  const text = draft.text;
  const trimmed = text.trim();
  const empty = trimmed === '';
  switch (field.kind) {
    case 'text':
      return { value: text };
    case 'boolean':
      return { value: text === 'true' };
    case 'enum':
      return { value: empty ? null : text };
    case 'json':
      if (empty) return { value: null };
      try {
        return { value: JSON.parse(text) };
      } catch (error) {
        return { problem: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
      }
    case 'uuid':
      if (empty) return { value: null };
      return UUID.test(trimmed) ? { value: trimmed.toLowerCase() } : { problem: EXPECTED.uuid };
    case 'integer':
    case 'number':
      return empty ? { value: null } : numberOf(field, trimmed);
    case 'date':
      if (empty) return { value: null };
      return DATE.test(trimmed) || INFINITE.test(trimmed) ? { value: trimmed } : { problem: EXPECTED.date };
    case 'time': {
      if (empty) return { value: null };
      const time = timeOf(trimmed);
      return time === null ? { problem: EXPECTED.time } : { value: time };
    }
    case 'datetime':
    case 'zoned-datetime': {
      if (empty) return { value: null };
      if (INFINITE.test(trimmed)) return { value: trimmed };
      const [date, time, rest] = trimmed.split(/[T ]/);
      const exact = time === undefined ? null : timeOf(time);
      if (rest !== undefined || !DATE.test(date ?? '') || exact === null) {
        if (field.kind === 'zoned-datetime' && !Number.isNaN(Date.parse(trimmed))) return { value: trimmed };
        return { problem: EXPECTED[field.kind] };
      }
      return { value: `${date}T${exact}${field.kind === 'zoned-datetime' ? '+00:00' : ''}` };
    }
  }
}

/** `hh:mm[:ss[.fff]]` as `hh:mm:ss[.fff]`, without the zeros that end a fraction; null when it is no time. */
function timeOf(text: string): string | null {
  const match = TIME.exec(text);
  if (!match) return null;
  const [, hoursMinutes, seconds = '00', fraction = ''] = match;
  const digits = fraction.replace(/0+$/, '');
  return `${hoursMinutes}:${seconds}${digits ? `.${digits}` : ''}`;
}

/**
 * A number as a JSON number when a double holds it exactly, else (int8 beyond 2^53, numeric's digits) as
 * the text the API takes for those types.
 */
function numberOf(field: FieldShape, text: string): Converted {
  const number = Number(text);
  if (field.kind === 'integer') {
    if (!/^-?\d+$/.test(text)) return { problem: EXPECTED.integer };
    if (Number.isSafeInteger(number)) return { value: number };
    return field.acceptsText ? { value: text } : { problem: 'This number is too large.' };
  }
  if (!Number.isFinite(number) || !/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) {
    return field.acceptsText && isNonFinite(text) ? { value: text } : { problem: EXPECTED.number };
  }
  return field.acceptsText && String(number) !== text ? { value: text } : { value: number };
}

/** Whether the user changed the draft from what was loaded. */
export function changed(before: Draft | undefined, after: Draft): boolean {
  return (
    before === undefined ||
    before.text !== after.text ||
    before.isNull !== after.isNull ||
    after.unreadable === true
  );
}
