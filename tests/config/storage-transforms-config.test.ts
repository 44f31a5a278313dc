import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/adapters/config/load-config.ts';

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig({ env });
  } catch (error) {
    assert.instance(error, ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

test('image transforms default to one per core, 32 waiting, 50 megapixels, 6000 pixels a side, no presets', () => {
  const { transforms } = loadConfig({ env: {} }).storage;
  assert.equal(transforms, { queue: 32, maxPixels: 50_000_000, maxDimension: 6000, presetsOnly: false });
  const presetsOnly = loadConfig({ env: { STORAGE_TRANSFORMS_PRESETS_ONLY: 'true' } }).storage.transforms;
  assert.is(presetsOnly.presetsOnly, true);
});

test('presets come as JSON text from the environment, checked like a query', () => {
  const { transforms } = loadConfig({
    env: {
      STORAGE_TRANSFORMS_PRESETS: '{"thumbnail":{"width":200,"height":200,"fit":"cover","format":"auto"}}',
      STORAGE_TRANSFORMS_CONCURRENCY: '3',
    },
  }).storage;
  assert.equal(transforms.presets, { thumbnail: { width: 200, height: 200, fit: 'cover', format: 'auto' } });
  assert.is(transforms.concurrency, 3);
});

test('a bad preset stops start-up naming it', () => {
  assert.match(refusal({ STORAGE_TRANSFORMS_PRESETS: '{"x":' }), 'storage.transforms.presets');
  assert.match(refusal({ STORAGE_TRANSFORMS_PRESETS: '{"x":{"fit":"fill"}}' }), 'presets');
  assert.match(refusal({ STORAGE_TRANSFORMS_PRESETS: '{"x":{"blur":3}}' }), 'presets');
  assert.match(refusal({ STORAGE_TRANSFORMS_PRESETS: '{"x":{}}' }), 'presets');
  assert.match(refusal({ STORAGE_TRANSFORMS_PRESETS: '{"a b":{"width":1}}' }), 'presets');
  assert.match(
    refusal({ STORAGE_TRANSFORMS_PRESETS: '{"big":{"width":7000}}' }),
    'storage.transforms.presets.big.width',
  );
  assert.match(refusal({ STORAGE_TRANSFORMS_MAX_DIMENSION: '20000' }), 'storage.transforms.maxDimension');
});

test.run();
