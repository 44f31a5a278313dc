import { test } from 'uvu';
import { authorizeCreateDraft } from '../../../src/domain/permissions/write-grants.ts';
import { CARGO_IDS } from '../../support/cargos-schema.ts';
import { expectError } from '../items/domain-error.ts';
import { grantsFor, operator, permission } from './write-fixture.ts';

/**
 * authorizeCreateDraft: the create check made before the insert, on the item as it will be stored but for
 * the columns only the database fills (`unknown`).
 */
const live = { is_deleted: { _eq: false } };
const draft = { id: CARGO_IDS.a, is_deleted: false, description: 'figs', temperature: 4 };
const none = new Set<string>();

test('admins pass unchecked', () => {
  authorizeCreateDraft('all', { is_deleted: true }, none, ['is_deleted']);
});

test('with nothing unknown it answers as authorizeCreate on the stored row', () => {
  const granted = grantsFor(operator, [
    permission({
      permissions: live,
      fields: ['description', 'temperature'],
      validation: { temperature: { _lt: 10 } },
    }),
  ]);
  authorizeCreateDraft(granted, draft, none, ['description']);
  expectError(() => authorizeCreateDraft(granted, draft, none, ['description', 'code']), 'FORBIDDEN', 'code');
  expectError(() => authorizeCreateDraft(granted, { ...draft, is_deleted: true }, none, []), 'FORBIDDEN');
  expectError(
    () => authorizeCreateDraft(granted, { ...draft, temperature: 20 }, none, ['temperature']),
    'FAILED_VALIDATION',
    'temperature',
  );
});

test('a rule on a column only the database fills waits for the stored row instead of reading it as null', () => {
  const onKey = grantsFor(operator, [
    permission({ permissions: { id: { _nnull: true } }, fields: ['description'] }),
  ]);
  const { id: _filledByTheDatabase, ...withoutKey } = draft;
  authorizeCreateDraft(onKey, withoutKey, new Set(['id']), ['description']);
  const onValidation = grantsFor(operator, [permission({ validation: { id: { _nnull: true } } })]);
  authorizeCreateDraft(onValidation, withoutKey, new Set(['id']), ['description']);
});

test('fields no grant lets the payload set are refused at once, whatever the unknown columns hold', () => {
  const onKey = grantsFor(operator, [
    permission({ permissions: { id: { _nnull: true } }, fields: ['description'] }),
  ]);
  const { id: _filledByTheDatabase, ...withoutKey } = draft;
  expectError(() => authorizeCreateDraft(onKey, withoutKey, new Set(['id']), ['code']), 'FORBIDDEN');
});

test('a grant that does not depend on the unknown columns decides at once', () => {
  const granted = grantsFor(operator, [permission({ permissions: live, fields: ['description'] })]);
  expectError(
    () => authorizeCreateDraft(granted, { ...draft, is_deleted: true }, new Set(['id']), ['description']),
    'FORBIDDEN',
  );
});

test.run();
