import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  describeTextPath,
  findTextFlaw,
  jsonMayHoldFlawedText,
  textFlaw,
} from '../../src/domain/well-formed-text.ts';

test('a NUL character or a lone surrogate is a flaw; a surrogate pair, U+FFFD and other controls are not', () => {
  for (const text of ['\u0000', 'a\u0000', '\u0000\ud800'])
    assert.is(textFlaw(text), 'a NUL character', text);
  for (const text of ['\ud800', '\udbff', '\udc00', '\udfff', 'a\ud800b', '\udc00\ud800', '😀\ud83d']) {
    assert.is(textFlaw(text), 'a lone surrogate', JSON.stringify(text));
  }
  for (const text of ['', 'plain', '😀', '\ud83d\ude00', '\ufffd', '\u0001\u001f\u007f', 'é中']) {
    assert.is(textFlaw(text), null, JSON.stringify(text));
  }
});

test('the first flawed string or key of a JSON value is found with its path', () => {
  assert.is(findTextFlaw({ a: [1, 'ok', { b: null }], c: true }), null);
  assert.equal(findTextFlaw({ a: 'ok', b: ['x', { c: 'a\u0000' }] }), {
    flaw: 'a NUL character',
    path: ['b', 1, 'c'],
    inKey: false,
  });
  assert.equal(findTextFlaw([{ ok: 1 }, { 'k\ud800': 1 }]), {
    flaw: 'a lone surrogate',
    path: [1, 'k\ud800'],
    inKey: true,
  });
  // Document order: the first in the text is reported.
  assert.equal(findTextFlaw(['\u0000', '\ud800'])?.path, [0]);
});

test('a path is named as payload errors name fields, flawed keys escaped', () => {
  assert.is(describeTextPath(['items', 0, 'description']), 'items.0.description');
  assert.is(describeTextPath(['manifest', 'k\u0000']), 'manifest.k\\u0000');
  assert.is(describeTextPath(['\ud800']), '\\ud800');
});

test('JSON text may hold a flaw only where it has a NUL or surrogate escape', () => {
  for (const json of ['"\\u0000"', '"\\ud800"', '"\\uDC00"', '"\\uDfFf"', '"\\\\u0000"']) {
    assert.ok(jsonMayHoldFlawedText(json), json);
  }
  for (const json of ['"plain"', '"\\u0001"', '"\\u00e9"', '"\\uE000"', '"😀"', '"\\u0d80"']) {
    assert.not.ok(jsonMayHoldFlawedText(json), json);
  }
});

test.run();
