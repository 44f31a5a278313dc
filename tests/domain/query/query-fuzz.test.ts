import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/domain/errors.ts';
import { bindDynamicValues } from '../../../src/domain/query/bind-dynamic-values.ts';
import { matchesFilter } from '../../../src/domain/query/evaluate-filter.ts';
import { COMPARISON_OPERATORS } from '../../../src/domain/query/filter.ts';
import { parseFilter } from '../../../src/domain/query/parse-filter.ts';
import { parseItemQuery } from '../../../src/domain/query/parse-item-query.ts';
import { cargoRows, cargosSchema } from '../../support/cargos-schema.ts';
import { canonicalRows } from './canonical-rows.ts';

/** mulberry32: a tiny seeded PRNG, so a failure reproduces from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: ReadonlyArray<T>): T => items[Math.floor(next() * items.length)]!;
  return { next, pick };
}

const FIELD_NAMES = [
  ...cargosSchema.fields.map((field) => field.name),
  'nope',
  '__proto__',
  'constructor',
  'a.b',
  '',
];
const KEYS = [...FIELD_NAMES, ...COMPARISON_OPERATORS, '_and', '_or', '_not', '0', '1', '25'];
const STRINGS = [
  '',
  '1',
  '-1',
  '0',
  '1e400',
  '  12 ',
  'true',
  'false',
  'null',
  '$NOW',
  '$NOW(-1 day)',
  '$NOW(x)',
  '$CURRENT_USER',
  '$CURRENT_ROLE',
  '2024-02-30',
  '2024-01-01T10:00:00Z',
  '23:59:59.9999999',
  '0190a1b2-0000-7000-8000-000000000001',
  'a,b',
  '1,2',
  '%_',
  '🐟',
  '\u0000',
  '\ud800',
  '9223372036854775808',
  '{"a":1}',
  '[]',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  Number.NaN,
  Number.POSITIVE_INFINITY,
];

function value(rng: ReturnType<typeof random>, depth: number): unknown {
  const roll = rng.next();
  if (depth > 6 || roll < 0.3) return rng.pick(STRINGS);
  if (roll < 0.45) return rng.pick(NUMBERS);
  if (roll < 0.5) return rng.pick([true, false, null, undefined]);
  if (roll < 0.7) return Array.from({ length: Math.floor(rng.next() * 4) }, () => value(rng, depth + 1));
  const object: Record<string, unknown> = {};
  for (let index = Math.floor(rng.next() * 4); index > 0; index--) {
    Object.defineProperty(object, rng.pick(KEYS), {
      value: value(rng, depth + 1),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return object;
}

/** A structurally plausible filter, so that most inputs get deep into the parser rather than failing at the top. */
function filter(rng: ReturnType<typeof random>, depth: number): unknown {
  if (depth > 12 || rng.next() < 0.1) return value(rng, depth);
  if (rng.next() < 0.25) {
    return {
      [rng.pick(['_and', '_or'])]: Array.from({ length: Math.floor(rng.next() * 4) }, () =>
        filter(rng, depth + 1),
      ),
    };
  }
  const operand = rng.next() < 0.5 ? rng.pick(STRINGS) : value(rng, depth + 1);
  return { [rng.pick(FIELD_NAMES)]: { [rng.pick([...COMPARISON_OPERATORS, '_like'])]: operand } };
}

function onlyInvalidQuery(action: () => unknown, input: unknown, seed: number) {
  try {
    return action();
  } catch (error) {
    const shown = (() => {
      try {
        return JSON.stringify(input)?.slice(0, 300);
      } catch {
        return String(input);
      }
    })();
    if (!(error instanceof DomainError)) assert.unreachable(`seed ${seed}: ${String(error)} for ${shown}`);
    assert.is((error as DomainError).code, 'INVALID_QUERY', `seed ${seed}: ${shown}`);
    assert.ok((error as DomainError).message.length < 300, 'messages stay short');
    return undefined;
  }
}

const rows = canonicalRows(cargosSchema, cargoRows);
const context = { user: null, role: null, now: new Date('2024-03-15T12:00:00Z') };

test('random filters either parse — and then bind and evaluate without error — or fail as INVALID_QUERY', () => {
  let parsed = 0;
  for (let seed = 1; seed <= 4000; seed++) {
    const rng = random(seed);
    const raw = filter(rng, 1);
    const input = rng.next() < 0.3 ? (JSON.stringify(raw) ?? 'undefined') : raw;
    const node = onlyInvalidQuery(() => parseFilter(input, cargosSchema), raw, seed);
    if (node === undefined) continue;
    parsed++;
    const bound = bindDynamicValues(node as ReturnType<typeof parseFilter>, context, cargosSchema);
    for (const row of rows) matchesFilter(bound, row, cargosSchema);
  }
  assert.ok(parsed > 200, `enough random filters were valid to exercise the evaluator (${parsed})`);
});

test('random query objects either parse or fail as INVALID_QUERY', () => {
  const params = [
    'fields',
    'sort',
    'limit',
    'offset',
    'page',
    'search',
    'meta',
    'filter',
    'access_token',
    'deep',
  ];
  for (let seed = 1; seed <= 3000; seed++) {
    const rng = random(seed * 7919);
    const raw: Record<string, unknown> = {};
    for (let index = Math.floor(rng.next() * 4); index > 0; index--) {
      const name = rng.pick(params);
      raw[name] = name === 'filter' && rng.next() < 0.5 ? filter(rng, 1) : value(rng, 4);
    }
    onlyInvalidQuery(
      () => parseItemQuery(raw, cargosSchema, { limitDefault: 100, limitMax: rng.pick([1000, -1]) }),
      raw,
      seed,
    );
  }
});

test('random JSON text, including truncated and deeply nested, fails only as INVALID_QUERY', () => {
  for (let seed = 1; seed <= 1000; seed++) {
    const rng = random(seed * 104729);
    const text = JSON.stringify(filter(rng, 1)) ?? '';
    const cut = text.slice(0, Math.floor(rng.next() * (text.length + 1)));
    onlyInvalidQuery(() => parseFilter(cut, cargosSchema), cut, seed);
  }
  const deep = `${'{"_and":['.repeat(50_000)}{}${']}'.repeat(50_000)}`;
  onlyInvalidQuery(() => parseFilter(deep, cargosSchema), 'deep', 0);
  const wide = `[${'1,'.repeat(100_000)}1]`;
  onlyInvalidQuery(() => parseFilter(`{"crate_count":{"_in":${wide}}}`, cargosSchema), 'wide', 0);
});

test.run();
