import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  bindDynamicValues,
  type DynamicContext,
  hasDynamicValues,
} from '../../../src/domain/query/bind-dynamic-values.ts';
import { MATCH_NONE } from '../../../src/domain/query/filter.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { CARGO_USERS, cargosSchema } from '../../support/cargos-schema.ts';

const NOW = new Date('2024-03-15T12:34:56.789Z');
const ROLE = '0190a1b2-0000-7000-8000-0000000000ee';
const ada: DynamicContext = { user: CARGO_USERS.ada, role: ROLE, now: NOW };
const publicCaller: DynamicContext = { user: null, role: null, now: NOW };

const bind = (raw: unknown, context: DynamicContext = ada) =>
  bindDynamicValues(parseFilter(raw, cargosSchema), context, cargosSchema);
const cond = (field: string, operator: string, extra: object) => ({
  kind: 'condition',
  field,
  operator,
  ...extra,
});

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const localDate = (d: Date) => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const localTime = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

test("$CURRENT_USER and $CURRENT_ROLE become the caller's ids, coerced to the field", () => {
  assert.equal(
    bind({ user_created: { _eq: '$CURRENT_USER' } }),
    cond('user_created', '_eq', { value: CARGO_USERS.ada }),
  );
  assert.equal(
    bind({ user_created: { _neq: '$CURRENT_ROLE' } }),
    cond('user_created', '_neq', { value: ROLE }),
  );
  assert.equal(
    bind({ code: { _contains: '$CURRENT_USER' } }),
    cond('code', '_contains', { value: CARGO_USERS.ada }),
  );
});

test('$NOW is formatted per field type: local seed format, UTC instant, local date and time', () => {
  const dayBefore = new Date(NOW.getTime() - 86_400_000);
  assert.equal(
    bind({ date_created: { _lt: '$NOW(-1 day)' } }),
    cond('date_created', '_lt', { value: `${localDate(dayBefore)}T${localTime(dayBefore)}` }),
  );
  assert.equal(
    bind({ departed_at: { _lte: '$NOW' } }),
    cond('departed_at', '_lte', { value: '2024-03-15T12:34:56.789+00:00' }),
  );
  assert.equal(
    bind({ departed_at: { _gt: '$NOW(+2 hours)' } }),
    cond('departed_at', '_gt', { value: '2024-03-15T14:34:56.789+00:00' }),
  );
  assert.equal(bind({ shipped_on: { _eq: '$NOW' } }), cond('shipped_on', '_eq', { value: localDate(NOW) }));
  assert.equal(bind({ pickup_time: { _lt: '$NOW' } }), cond('pickup_time', '_lt', { value: localTime(NOW) }));
});

test("a public caller's $CURRENT_USER is null: comparisons with it match nothing, even _neq", () => {
  for (const operator of ['_eq', '_neq', '_lt', '_contains']) {
    const field = operator === '_contains' ? 'code' : 'user_created';
    assert.equal(bind({ [field]: { [operator]: '$CURRENT_USER' } }, publicCaller), MATCH_NONE, operator);
  }
  assert.equal(
    bind({ user_created: { _between: ['$CURRENT_USER', CARGO_USERS.bob] } }, publicCaller),
    MATCH_NONE,
  );
});

test('inside _in a null value is dropped (x IN (a, NULL) matches a); inside _nin it matches nothing', () => {
  assert.equal(
    bind({ user_created: { _in: [CARGO_USERS.bob, '$CURRENT_USER'] } }, publicCaller),
    cond('user_created', '_in', { values: [CARGO_USERS.bob] }),
  );
  assert.equal(bind({ user_created: { _in: ['$CURRENT_USER'] } }, publicCaller), MATCH_NONE);
  assert.equal(
    bind({ user_created: { _nin: [CARGO_USERS.bob, '$CURRENT_USER'] } }, publicCaller),
    MATCH_NONE,
  );
});

test('a dynamic value unfit for its field matches nothing instead of throwing', () => {
  assert.equal(bind({ crate_count: { _eq: '$CURRENT_USER' } }), MATCH_NONE);
  assert.equal(bind({ is_deleted: { _eq: '$NOW' } }), MATCH_NONE);
  assert.equal(bind({ code: { _eq: '$NOW' } }), MATCH_NONE);
  assert.equal(
    bind({ crate_count: { _in: [1, '$CURRENT_ROLE'] } }),
    cond('crate_count', '_in', { values: [1] }),
  );
  const farFuture = { ...ada, now: new Date('9999-06-01T00:00:00Z') };
  assert.equal(bind({ date_created: { _lt: '$NOW(+1 year)' } }, farFuture), MATCH_NONE);
});

test('matching nothing only narrows: inside _or the other branches still count, inside _and all fails', () => {
  assert.equal(
    bind({ _or: [{ user_created: { _eq: '$CURRENT_USER' } }, { is_deleted: { _eq: false } }] }, publicCaller),
    cond('is_deleted', '_eq', { value: false }),
  );
  assert.equal(
    bind({ user_created: { _eq: '$CURRENT_USER' }, is_deleted: { _eq: false } }, publicCaller),
    MATCH_NONE,
  );
});

test('a tree without dynamic values is returned as it is; a bound tree has none left', () => {
  const parsed = parseFilter({ crate_count: { _gt: 1 }, code: { _in: 'a,b' } }, cargosSchema);
  assert.not.ok(hasDynamicValues(parsed));
  assert.equal(bindDynamicValues(parsed, ada, cargosSchema), parsed);
  const dynamic = parseFilter(
    { _or: [{ crate_count: { _gt: 1 } }, { user_created: { _in: ['$CURRENT_USER'] } }] },
    cargosSchema,
  );
  assert.ok(hasDynamicValues(dynamic));
  assert.not.ok(hasDynamicValues(bindDynamicValues(dynamic, ada, cargosSchema)));
});

test.run();
