import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHttpDate } from '../../../src/adapters/http/http-date.ts';

const NOW = new Date('2026-11-27T10:00:00Z');

test('the three forms of an HTTP-date read as the same instant (RFC 9110 §5.6.7)', () => {
  const cases: Array<[string, string]> = [
    ['Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37.000Z'],
    ['Sun Nov 16 08:49:37 1994', '1994-11-16T08:49:37.000Z'],
    // A two-digit year more than 50 years ahead is the last one in the past with those digits.
    ['Thursday, 06-Nov-80 08:49:37 GMT', '1980-11-06T08:49:37.000Z'],
    ['Friday, 06-Nov-76 08:49:37 GMT', '2076-11-06T08:49:37.000Z'],
    ['Sat, 31 Dec 2016 23:59:60 GMT', '2017-01-01T00:00:00.000Z'],
    ['Mon, 01 Jan 0001 00:00:00 GMT', '0001-01-01T00:00:00.000Z'],
  ];
  for (const [text, instant] of cases) assert.is(parseHttpDate(text, NOW)?.toISOString(), instant, text);
});

test('anything else is no date, whatever Date.parse makes of it', () => {
  for (const text of [
    '',
    '2020',
    '1 2 3',
    '2026-11-27T10:00:00Z',
    'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT',
    'sun, 06 nov 1994 08:49:37 gmt',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 +0000',
    ' Sun, 06 Nov 1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
  ]) {
    assert.is(parseHttpDate(text, NOW), null, JSON.stringify(text));
  }
});

test.run();
