import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  configReference,
  REFERENCE_END,
  REFERENCE_START,
} from '../../src/adapters/config/config-reference.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README configuration reference is the one generated from the schema', () => {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  assert.ok(start >= 0 && end > start, `README.md needs ${REFERENCE_START} and ${REFERENCE_END}`);
  const current = readme.slice(start + REFERENCE_START.length, end).trim();
  assert.fixture(
    current,
    configReference(),
    'README.md is out of date: run `node --import tsx scripts/config-reference.ts --write`',
  );
});

test.run();
