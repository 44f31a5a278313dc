import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FieldKind, FieldShape } from '../../studio/src/api/field-shape.ts';
import { apiValueOf, changed, draftOf } from '../../studio/src/api/field-values.ts';

const shape = (kind: FieldKind, options: Partial<FieldShape> = {}): FieldShape => ({
  name: 'f',
  kind,
  nullable: true,
  choices: [],
  setByServer: false,
  acceptsText: false,
  maxLength: null,
  related: null,
  ...options,
});

const sent = (field: FieldShape, text: string) => apiValueOf(field, { text, isNull: false });

test("a timestamp without a zone: what datetime-local gives becomes the seed's YYYY-MM-DDThh:mm:ss", () => {
  const field = shape('datetime');
  // A datetime-local input drops seconds that are 0 (a "normalized" value); they are put back.
  assert.equal(sent(field, '2024-01-10T08:00'), { value: '2024-01-10T08:00:00' });
  assert.equal(sent(field, '2024-01-10T08:00:05'), { value: '2024-01-10T08:00:05' });
  // A fraction is kept, without the zeros that end it.
  assert.equal(sent(field, '2024-03-15T00:00:00.500'), { value: '2024-03-15T00:00:00.5' });
  assert.equal(sent(field, '2024-03-15T00:00:00.000'), { value: '2024-03-15T00:00:00' });
  assert.equal(sent(field, 'infinity'), { value: 'infinity' });
  assert.equal(sent(field, ''), { value: null });
  assert.ok('problem' in sent(field, '2024-01-10T08:00:00+01:00'), 'no zone on a timestamp');
  assert.ok('problem' in sent(field, 'yesterday'));
  assert.equal(draftOf(field, '2024-01-10T08:00:00'), { text: '2024-01-10T08:00:00', isNull: false });
});

test('a timestamp with a zone is edited in UTC and sent with +00:00', () => {
  const field = shape('zoned-datetime');
  const draft = draftOf(field, '2024-01-10T07:00:00+00:00');
  assert.equal(draft, { text: '2024-01-10T07:00:00', isNull: false });
  assert.equal(apiValueOf(field, draft), { value: '2024-01-10T07:00:00+00:00' });
  assert.equal(sent(field, '2024-05-06T07:08'), { value: '2024-05-06T07:08:00+00:00' });
  // Typed as text with its own offset, it is sent as typed.
  assert.equal(sent(field, '2024-05-06T07:08:00-02:00'), { value: '2024-05-06T07:08:00-02:00' });
});

test('dates and times in their formats', () => {
  assert.equal(sent(shape('date'), '2024-02-29'), { value: '2024-02-29' });
  assert.ok('problem' in sent(shape('date'), '29/02/2024'));
  assert.equal(sent(shape('time'), '08:30'), { value: '08:30:00' });
  assert.equal(sent(shape('time'), '23:59:59.999'), { value: '23:59:59.999' });
  assert.ok('problem' in sent(shape('time'), '8h30'));
});

test('numbers: JSON numbers when a double holds them, the exact text where the API takes text', () => {
  assert.equal(sent(shape('number'), '-18.5'), { value: -18.5 });
  assert.equal(sent(shape('number'), '1.10'), { value: 1.1 }, 'a float rounds as the database would');
  assert.ok('problem' in sent(shape('number'), '12abc'));
  assert.ok('problem' in sent(shape('number'), 'NaN'), 'no text for a plain number');
  const decimal = shape('number', { acceptsText: true });
  assert.equal(sent(decimal, '19.99'), { value: 19.99 });
  assert.equal(sent(decimal, '123456789012345678901234567890'), { value: '123456789012345678901234567890' });
  assert.equal(sent(decimal, '0.10'), { value: '0.10' }, 'numeric keeps its scale');
  assert.equal(sent(shape('integer'), '40'), { value: 40 });
  assert.ok('problem' in sent(shape('integer'), '4.5'));
  assert.ok('problem' in sent(shape('integer'), '9007199254740993'), 'an int4 cannot hold it');
  const bigint = shape('integer', { acceptsText: true });
  assert.equal(sent(bigint, '9007199254740993'), { value: '9007199254740993' });
  assert.equal(sent(bigint, '42'), { value: 42 });
  assert.equal(sent(shape('number'), ''), { value: null });
});

test('a float or decimal keeps, and takes, NaN and ±Infinity as the API spells them; an integer does not', () => {
  // A float's and a decimal's schemas take these strings, so their shapes accept text.
  for (const field of [
    shape('number', { acceptsText: true }),
    shape('number', { acceptsText: true, nullable: false }),
  ]) {
    for (const value of ['NaN', 'Infinity', '-Infinity']) {
      const draft = draftOf(field, value);
      assert.equal(draft, { text: value, isNull: false }, 'shown as answered');
      assert.equal(apiValueOf(field, draft), { value }, 'sent back unchanged');
      assert.not.ok(changed(draft, { text: value, isNull: false }), 'an untouched field is not sent');
    }
    for (const spelling of ['nan', 'inf', '-inf', 'infinity', '+Infinity']) {
      assert.ok('problem' in sent(field, spelling), `${spelling}: not as the API spells it`);
    }
    assert.equal(sent(field, '-18.5'), { value: -18.5 }, 'and numbers still');
  }
  for (const integer of [shape('integer'), shape('integer', { acceptsText: true })]) {
    for (const value of ['NaN', 'Infinity', '-Infinity']) {
      assert.equal(sent(integer, value), { problem: 'Enter a whole number.' }, value);
    }
  }
});

test('JSON is parsed before it is sent; null is null; the rest as typed', () => {
  assert.equal(sent(shape('json'), '{"items": ["cod"]}'), { value: { items: ['cod'] } });
  assert.match((sent(shape('json'), '{items') as { problem: string }).problem, /^Not valid JSON/);
  assert.equal(draftOf(shape('json'), ['a']), { text: '[\n  "a"\n]', isNull: false });
  assert.equal(apiValueOf(shape('text'), { text: 'x', isNull: true }), { value: null });
  assert.equal(sent(shape('text'), ''), { value: '' }, 'an empty text is not null');
  assert.equal(sent(shape('boolean'), 'false'), { value: false });
  assert.equal(sent(shape('uuid'), ' 0190A1B2-0000-7000-8000-000000000001 '), {
    value: '0190a1b2-0000-7000-8000-000000000001',
  });
  assert.ok('problem' in sent(shape('uuid'), 'not-a-uuid'));
  assert.equal(sent(shape('enum', { choices: ['a'] }), 'a'), { value: 'a' });
});

test('a field is changed when its text or its null differ from what was loaded', () => {
  const loaded = { text: '4', isNull: false };
  assert.not.ok(changed(loaded, { text: '4', isNull: false }));
  assert.ok(changed(loaded, { text: '5', isNull: false }));
  assert.ok(changed(loaded, { text: '4', isNull: true }));
  assert.ok(changed(undefined, loaded));
});

test('text an input of a type cannot read (a number input says "") is refused, never sent as null', () => {
  const unreadable = { text: '', isNull: false, unreadable: true } as const;
  assert.equal(apiValueOf(shape('integer'), unreadable), { problem: 'Enter a whole number.' });
  assert.equal(apiValueOf(shape('number'), unreadable), { problem: 'Enter a number.' });
  assert.equal(apiValueOf(shape('date'), unreadable), { problem: 'Enter a date, YYYY-MM-DD.' });
  // A new item's empty field is "changed" when its input holds text it cannot read: it gets the problem.
  assert.ok(changed({ text: '', isNull: false }, unreadable));
  assert.equal(apiValueOf(shape('integer'), { text: '', isNull: true, unreadable: true }), { value: null });
});

test.run();
