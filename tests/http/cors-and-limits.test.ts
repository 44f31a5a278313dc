import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestApp } from '../support/test-app.ts';
import { firstError } from './scenario.ts';

const cors = suite('CORS');

cors('off by default: no Access-Control header, even for a preflight', () =>
  withTestApp(async (app) => {
    const preflight = await app.request('OPTIONS', '/items/cargos', {
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
    });
    assert.is(preflight.headers.get('access-control-allow-origin'), null);
    const simple = await app.request('GET', '/server/health', {
      headers: { Origin: 'https://evil.example' },
    });
    assert.is(simple.headers.get('access-control-allow-origin'), null);
  }),
);

cors('on: a listed origin is allowed, an unlisted one gets no CORS headers', () =>
  withTestApp(
    async (app) => {
      const allowed = await app.request('OPTIONS', '/items/cargos', {
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'PATCH',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      });
      assert.is(allowed.status, 204);
      assert.is(allowed.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.is(allowed.headers.get('access-control-allow-credentials'), 'true');
      assert.match(allowed.headers.get('access-control-allow-methods') ?? '', 'PATCH');
      assert.is(allowed.headers.get('access-control-max-age'), '60');

      const read = await app.request('GET', '/server/health', { headers: { Origin: 'https://app.example' } });
      assert.is(read.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.match(read.headers.get('access-control-expose-headers') ?? '', 'X-Request-Id');
      assert.match(read.headers.get('vary') ?? '', 'Origin');

      const other = await app.request('GET', '/server/health', {
        headers: { Origin: 'https://evil.example' },
      });
      assert.is(other.status, 200);
      assert.is(other.headers.get('access-control-allow-origin'), null);
      assert.is(other.headers.get('access-control-allow-credentials'), null);
    },
    {
      env: {
        CORS_ENABLED: 'true',
        CORS_ORIGINS: 'https://app.example, https://admin.example',
        CORS_CREDENTIALS: 'true',
        CORS_MAX_AGE: '1m',
      },
    },
  ),
);

cors('on with "*" and no credentials: any origin, answered as *', () =>
  withTestApp(
    async (app) => {
      const read = await app.request('GET', '/server/health', { headers: { Origin: 'https://any.example' } });
      assert.is(read.headers.get('access-control-allow-origin'), '*');
      assert.is(read.headers.get('access-control-allow-credentials'), null);
    },
    { env: { CORS_ENABLED: 'true', CORS_ORIGINS: '*' } },
  ),
);

cors('"*" with credentials never reflects an arbitrary origin', () =>
  withTestApp(
    async (app) => {
      const read = await app.request('GET', '/server/health', { headers: { Origin: 'https://any.example' } });
      assert.is(read.headers.get('access-control-allow-origin'), null);
    },
    { env: { CORS_ENABLED: 'true', CORS_ORIGINS: '*', CORS_CREDENTIALS: 'true' } },
  ),
);

cors('error answers keep the CORS headers, so the browser script can read the error', () =>
  withTestApp(
    async (app) => {
      const refused = await app.request('GET', '/items/cargos', {
        headers: { Origin: 'https://app.example' },
      });
      assert.is(refused.status, 401);
      assert.is(refused.headers.get('access-control-allow-origin'), 'https://app.example');
    },
    { env: { CORS_ENABLED: 'true', CORS_ORIGINS: 'https://app.example' } },
  ),
);

cors(
  'with CORS on, every refusal before and after routing is the contract answer, CORS headers and its own kept',
  () =>
    withTestApp(
      async (app) => {
        const headers = { Origin: 'https://app.example' };
        const wrongMethod = await app.request('PUT', '/server/health', { headers });
        assert.is(wrongMethod.status, 405);
        assert.is(firstError(wrongMethod).extensions.code, 'METHOD_NOT_ALLOWED');
        assert.match(wrongMethod.headers.get('allow') ?? '', 'GET');
        assert.match(wrongMethod.headers.get('vary') ?? '', 'Origin');
        assert.is(wrongMethod.headers.get('access-control-allow-origin'), 'https://app.example');

        const noRoute = await app.request('GET', '/no/such/route', { headers });
        assert.is(noRoute.status, 404);
        assert.is(firstError(noRoute).extensions.code, 'NOT_FOUND');
        assert.is(noRoute.headers.get('access-control-allow-origin'), 'https://app.example');

        const notAdmitted = await app.request('GET', '/items/cargos?limit=%00', { headers });
        assert.is(notAdmitted.status, 400);
        assert.is(notAdmitted.headers.get('access-control-allow-origin'), 'https://app.example');
        assert.ok(notAdmitted.headers.get('x-request-id'));
      },
      { env: { CORS_ENABLED: 'true', CORS_ORIGINS: 'https://app.example' } },
    ),
);

cors('scripts may read the headers the API documents for them, assets and resumable uploads included', () =>
  withTestApp(
    async (app) => {
      const read = await app.request('GET', '/server/health', { headers: { Origin: 'https://app.example' } });
      const exposed = (read.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
      for (const name of [
        'x-total-count',
        'x-filter-count',
        'x-next-cursor',
        'x-request-id',
        'retry-after',
        'www-authenticate',
        'content-disposition',
        'content-range',
        'accept-ranges',
        'etag',
        'last-modified',
        'location',
        'upload-offset',
        'upload-length',
        'upload-expires',
        'tus-resumable',
      ]) {
        assert.ok(exposed.includes(name), `${name} is exposed`);
      }
    },
    { env: { CORS_ENABLED: 'true', CORS_ORIGINS: 'https://app.example' } },
  ),
);

cors('a preflight allows the request headers the API reads, not an echo of whatever is asked', () =>
  withTestApp(
    async (app) => {
      const preflight = await app.request('OPTIONS', '/assets/x', {
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization,range,cookie,x-anything',
        },
      });
      assert.is(preflight.status, 204);
      const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
      for (const name of [
        'authorization',
        'content-type',
        'content-encoding',
        'x-request-id',
        'range',
        'if-none-match',
        'upload-offset',
        'x-http-method-override',
      ]) {
        assert.ok(allowed.includes(name), `${name} is allowed`);
      }
      assert.not.ok(allowed.includes('cookie'), 'cookie is not allowed');
      assert.not.ok(allowed.includes('x-anything'), 'an unknown header is not allowed');
    },
    { env: { CORS_ENABLED: 'true', CORS_ORIGINS: 'https://app.example' } },
  ),
);

cors.run();

const queryLength = suite('query-string length (docs/api.md §4a)');

queryLength('over http.maxQueryLength → 414 URI_TOO_LONG, before any parsing', () =>
  withTestApp(
    async (app) => {
      const long = await app.request('GET', `/items/cargos?filter=${'a'.repeat(3000)}`);
      assert.is(long.status, 414);
      assert.is(firstError(long).extensions.code, 'URI_TOO_LONG');
      const fits = await app.request('GET', `/server/health?x=${'a'.repeat(1000)}`);
      assert.is(fits.status, 200);
    },
    { env: { MAX_QUERY_LENGTH: '2048' } },
  ),
);

queryLength('the default 16 KiB: a 16,000-byte query string is read, a larger one refused', () =>
  withTestApp(async (app) => {
    const fits = await app.request('GET', `/server/health?x=${'a'.repeat(16_000)}`);
    assert.is(fits.status, 200);
    const tooLong = await app.request('GET', `/server/health?x=${'a'.repeat(17_000)}`);
    assert.ok([414, 431].includes(tooLong.status), `status ${tooLong.status}`);
  }),
);

queryLength.run();
