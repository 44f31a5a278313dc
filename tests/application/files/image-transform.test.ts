import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type AssetQuery,
  type ImageTransformSettings,
  parseImageTransform,
  resolveImageTransform,
  variantDigest,
  variantSize,
  variesWithAccept,
} from '../../../src/application/files/image-transform.ts';
import { DomainError } from '../../../src/domain/errors.ts';

const SETTINGS: ImageTransformSettings = {
  maxDimension: 6000,
  presets: new Map([['thumbnail', { width: 200, height: 200, fit: 'cover', format: 'webp' }]]),
};

function refusal(query: AssetQuery): DomainError {
  try {
    parseImageTransform(query, SETTINGS);
  } catch (error) {
    assert.instance(error, DomainError);
    return error as DomainError;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`);
}

test('a query without transform parameters asks for the original', () => {
  assert.is(parseImageTransform({}, SETTINGS), undefined);
  assert.is(parseImageTransform({ download: '', access_token: 'x' }, SETTINGS), undefined);
});

test('every parameter is read into the request', () => {
  assert.equal(
    parseImageTransform(
      {
        width: '200',
        height: '6000',
        fit: 'inside',
        format: 'auto',
        quality: '100',
        withoutEnlargement: 'true',
      },
      SETTINGS,
    ),
    { width: 200, height: 6000, fit: 'inside', format: 'auto', quality: 100, withoutEnlargement: true },
  );
});

test('a bad value is 400 INVALID_QUERY naming its parameter', () => {
  const bad: Array<[AssetQuery, string]> = [
    [{ width: '0' }, 'width'],
    [{ width: '-5' }, 'width'],
    [{ width: '20.5' }, 'width'],
    [{ width: '1e3' }, 'width'],
    [{ width: '0x10' }, 'width'],
    [{ width: '' }, 'width'],
    [{ width: '6001' }, 'width'],
    [{ width: '99999999999999999999' }, 'width'],
    [{ height: ' 20' }, 'height'],
    [{ width: ['10', '20'] }, 'width'],
    [{ fit: 'fill' }, 'fit'],
    [{ format: 'gif' }, 'format'],
    [{ format: 'JPEG' }, 'format'],
    [{ quality: '0' }, 'quality'],
    [{ quality: '101' }, 'quality'],
    [{ withoutEnlargement: 'yes' }, 'withoutEnlargement'],
    [{ key: 'missing' }, 'key'],
    [{ key: '__proto__' }, 'key'],
    [{ key: 'thumbnail', width: '10' }, 'key'],
    [{ transforms: '[["blur",10]]' }, 'transforms'],
  ];
  for (const [query, field] of bad) {
    const error = refusal(query);
    assert.is(error.code, 'INVALID_QUERY', JSON.stringify(query));
    assert.is(error.extensions.field, field, JSON.stringify(query));
  }
  assert.is(refusal({ transforms: '[]' }).extensions.reason, 'UNSUPPORTED_PARAMETER');
});

test('a message echoes a long value only in part', () => {
  const error = refusal({ fit: 'x'.repeat(10_000) });
  assert.ok(error.message.length < 200);
});

test('key names a preset from the configuration', () => {
  assert.equal(parseImageTransform({ key: 'thumbnail' }, SETTINGS), {
    width: 200,
    height: 200,
    fit: 'cover',
    format: 'webp',
  });
});

test('with presetsOnly, a preset is served and any other transform parameter is refused, naming it', () => {
  const presetsOnly = { ...SETTINGS, presetsOnly: true };
  assert.equal(parseImageTransform({ key: 'thumbnail' }, presetsOnly), SETTINGS.presets.get('thumbnail'));
  assert.is(parseImageTransform({ download: '' }, presetsOnly), undefined);
  for (const name of ['width', 'height', 'fit', 'format', 'quality', 'withoutEnlargement']) {
    const query = { [name]: name === 'width' || name === 'height' || name === 'quality' ? '10' : 'x' };
    assert.throws(
      () => parseImageTransform(query, presetsOnly),
      (error: unknown) =>
        error instanceof DomainError &&
        error.code === 'INVALID_QUERY' &&
        error.extensions.field === name &&
        error.extensions.reason === 'UNSUPPORTED_PARAMETER',
      name,
    );
  }
});

test('format=auto takes AVIF, then WebP, from Accept, else the original format', () => {
  const auto = { format: 'auto' as const, width: 100 };
  const format = (accept: string | undefined, type = 'image/jpeg') =>
    resolveImageTransform(auto, type, accept).format;
  assert.is(format('image/avif,image/webp,*/*'), 'avif');
  assert.is(format('image/webp, image/avif;q=0.5'), 'avif');
  assert.is(format('image/webp,*/*;q=0.8'), 'webp');
  assert.is(format('image/avif;q=0, image/webp'), 'webp');
  assert.is(format('image/*,*/*'), 'jpeg');
  assert.is(format(undefined, 'image/png'), 'png');
  assert.is(format(undefined, 'image/gif'), 'png');
  assert.ok(variesWithAccept(auto));
  assert.not.ok(variesWithAccept({ width: 100 }));
});

test('without format a variant keeps the original format', () => {
  assert.is(resolveImageTransform({ width: 10 }, 'image/webp', 'image/avif').format, 'webp');
});

test('requests for the same output name the same variant', () => {
  const digest = (request: Parameters<typeof resolveImageTransform>[0], type = 'image/jpeg') =>
    variantDigest(resolveImageTransform(request, type, undefined), 'files/1\nv1');
  // fit matters only with both sides; quality does not change a PNG; default fit is cover.
  assert.is(digest({ width: 100, fit: 'inside' }), digest({ width: 100 }));
  assert.is(digest({ width: 100, height: 50 }), digest({ width: 100, height: 50, fit: 'cover' }));
  assert.is(digest({ width: 100, quality: 50 }, 'image/png'), digest({ width: 100 }, 'image/png'));
  assert.is(digest({ format: 'webp', withoutEnlargement: true }), digest({ format: 'webp' }));
  assert.is.not(digest({ width: 100 }), digest({ width: 101 }));
  assert.is.not(digest({ width: 100, height: 50, fit: 'contain' }), digest({ width: 100, height: 50 }));
  assert.is.not(digest({ width: 100, quality: 50 }), digest({ width: 100 }));
  assert.is.not(digest({ width: 100, withoutEnlargement: true }), digest({ width: 100 }));
});

test('a new version of the original names new variants', () => {
  const transform = resolveImageTransform({ width: 100 }, 'image/jpeg', undefined);
  assert.is.not(variantDigest(transform, 'files/1\nv1'), variantDigest(transform, 'files/1\nv2'));
  assert.match(variantDigest(transform, 'files/1\nv1'), /^[A-Za-z0-9_-]{43}$/);
});

test("a variant's size bounds what each fit makes", () => {
  const source = { width: 300, height: 200 };
  const size = (request: Parameters<typeof resolveImageTransform>[0]) =>
    variantSize(source, resolveImageTransform(request, 'image/png', undefined));
  assert.equal(size({}), source);
  assert.equal(size({ width: 150 }), { width: 150, height: 100 });
  assert.equal(size({ height: 400 }), { width: 600, height: 400 });
  assert.equal(size({ height: 400, withoutEnlargement: true }), source);
  assert.equal(size({ width: 100, height: 100 }), { width: 100, height: 100 });
  assert.equal(size({ width: 100, height: 100, fit: 'contain' }), { width: 100, height: 100 });
  assert.equal(size({ width: 100, height: 100, fit: 'inside' }), { width: 100, height: 67 });
  assert.equal(size({ width: 100, height: 100, fit: 'outside' }), { width: 150, height: 100 });
  assert.equal(variantSize({ width: 1, height: 10_000 }, { width: 100, format: 'png' }), {
    width: 100,
    height: 1_000_000,
  });
});

test.run();
