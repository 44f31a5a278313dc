import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chosenOneFieldOf,
  relationComment,
} from '../../../../src/adapters/persistence/postgres/relation-comment.ts';

test("the constraint comment round-trips a chosen name and ignores anyone else's comment", () => {
  assert.is(chosenOneFieldOf(relationComment('freight')), 'freight');
  for (const comment of [
    null,
    '',
    'Cargo travels in a shipment',
    '{"one_field":3}',
    '["freight"]',
    '{broken',
  ])
    assert.is(chosenOneFieldOf(comment), undefined, String(comment));
});

test.run();
