import { createDirectus, rest, staticToken, utilsImport } from '@directus/sdk';
import * as assert from 'uvu/assert';
import { backends, borrowed } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

const CRATE_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true } },
  { field: 'label', type: 'string', schema: { is_nullable: false } },
  { field: 'count', type: 'integer' },
];

type Context = { app: TestApp; admin: string; clerk: string };

const errorOf = (body: unknown) =>
  (body as { errors: Array<{ message: string; extensions: Record<string, unknown> }> }).errors[0]!;

for (const [target, test] of suitePerBackend<Context>(
  backends(),
  (backend) => `POST /utils/import on ${backend}`,
)) {
  test.before(async (context) => {
    const persistence = borrowed(await target.fresh());
    await persistence.schema.refresh();
    if (persistence.schema.current().collections.has('crates'))
      await persistence.schemaEditor.dropCollection('crates');
    context.app = await startTestApp({
      persistence,
      env: { IMPORT_CHUNK_ROWS: '2', IMPORT_MAX_BYTES: '4kb', IMPORT_MAX_RECORD_LENGTH: '1000' },
    });
    const { app } = context;
    context.admin = (await app.login(await app.seedAdmin())).access_token;
    const created = await app.request('POST', '/collections', {
      token: context.admin,
      body: { collection: 'crates', fields: CRATE_FIELDS },
    });
    assert.is(created.status, 200, created.text);
    const role = await app.createRole({ name: 'Clerk' });
    const clerk = await app.createUser({ role: role.id });
    const grant = { role: role.id, collection: 'crates', action: 'create', fields: ['label', 'count'] };
    assert.is((await app.request('POST', '/permissions', { token: context.admin, body: grant })).status, 200);
    context.clerk = (await app.login(clerk)).access_token;
  });
  test.before.each(async ({ app, admin }) => {
    await app.request('DELETE', '/items/crates', { token: admin, body: { query: { filter: {} } } });
  });
  test.after(async ({ app, admin }) => {
    // The embedded database is shared by every file of the run: leave it as found.
    await app.request('DELETE', '/collections/crates', { token: admin });
    await app.close();
    await target.dispose();
  });

  const count = async ({ app, admin }: Context) =>
    ((await app.request('GET', '/items/crates?fields=id', { token: admin })).body as unknown[]).length;

  test('a raw CSV, JSON or NDJSON body is imported; the answer counts the rows', async (context) => {
    const { app, clerk } = context;
    const bodies: Array<[string, string]> = [
      ['text/csv; charset=utf-8', 'label,count\na,1\nb,\nc,3\n'],
      ['application/json', '[{"label":"d"},{"label":"e","count":5}]'],
      ['application/x-ndjson', '{"label":"f"}\n'],
    ];
    const admin = context.admin;
    for (const [type, rawBody] of bodies) {
      const response = await app.request('POST', '/utils/import/crates', {
        token: admin,
        rawBody,
        headers: { 'Content-Type': type },
      });
      assert.is(response.status, 200, response.text);
    }
    assert.is(await count(context), 6);
    // Media types are case-insensitive (RFC 9110 §8.3.1), and a space may come before the parameters.
    for (const type of ['Text/CSV', 'TEXT/CSV ; charset=UTF-8', 'Application/X-NDJSON']) {
      const response = await app.request('POST', '/utils/import/crates', {
        token: admin,
        rawBody: type.startsWith('Application') ? '{"label":"g"}\n' : 'label\ng\n',
        headers: { 'Content-Type': type },
      });
      assert.equal([response.status, response.body], [200, { inserted: 1 }], `${type}: ${response.text}`);
    }
    assert.is(await count(context), 9);
    const csv = await app.request('POST', '/utils/import/crates', {
      token: clerk,
      rawBody: 'label,count\nx,1\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    assert.equal([csv.status, csv.body], [200, { inserted: 1 }]);
  });

  test('a multipart upload (Directus SDK utilsImport) is imported, its format from the part', async (context) => {
    const { app, admin } = context;
    const form = new FormData();
    form.append('file', new Blob(['id,label\n10,a\n11,b\n'], { type: 'text/csv' }), 'crates.csv');
    const response = await fetch(`${app.url}/utils/import/crates`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}` },
      body: form,
    });
    assert.is(response.status, 200, await response.clone().text());
    assert.equal(await response.json(), { inserted: 2 });
    const byName = new FormData();
    byName.append('file', new Blob(['{"id":12,"label":"c"}\n']), 'crates.ndjson');
    const sdk = createDirectus(app.url).with(staticToken(admin)).with(rest());
    assert.equal(await sdk.request(utilsImport('crates', byName)), { inserted: 1 });
    assert.is(await count(context), 3);
  });

  test('a field outside the permission is 403 naming row and field; nothing is written', async (context) => {
    const response = await context.app.request('POST', '/utils/import/crates', {
      token: context.clerk,
      rawBody: 'label,count\na,1\nb,2\nc,3\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    assert.is(response.status, 200, response.text);
    const forbidden = await context.app.request('POST', '/utils/import/crates', {
      token: context.clerk,
      rawBody: 'id,label\n50,a\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    assert.is(forbidden.status, 403);
    assert.equal(errorOf(forbidden.body).extensions, { code: 'FORBIDDEN', field: 'id', row: 1 });
    // Whether the value fits the field's type must not show: the same 403, not a 400 naming its type.
    const misfitId = await context.app.request('POST', '/utils/import/crates', {
      token: context.clerk,
      rawBody: '{"label":"a"}\n{"label":"b","id":"fifty"}\n',
      headers: { 'Content-Type': 'application/x-ndjson' },
    });
    assert.is(misfitId.status, 403, misfitId.text);
    assert.equal(errorOf(misfitId.body).extensions, { code: 'FORBIDDEN', field: 'id', row: 2 });
    assert.is(await count(context), 3);
  });

  test('mode=batch answers each chunk; a bad chunk leaves the others in', async (context) => {
    const response = await context.app.request('POST', '/utils/import/crates?mode=batch', {
      token: context.admin,
      rawBody: 'id,label,count\n1,a,1\n2,b,x\n3,c,3\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    assert.is(response.status, 200, response.text);
    const body = response.body as { inserted: number; chunks: Array<Record<string, unknown>> };
    assert.is(body.inserted, 1);
    assert.equal(body.chunks[0]!.rows, [1, 2]);
    assert.equal((body.chunks[0]!.error as { extensions: unknown }).extensions, {
      code: 'FAILED_VALIDATION',
      field: 'count',
      row: 2,
    });
    assert.equal(body.chunks[1], { rows: [3, 3], inserted: 1 });
    assert.is(await count(context), 1);
  });

  test('refusals: no file, an unknown format, a bad mode, a file over import.maxBytes', async ({
    app,
    admin,
  }) => {
    const cases: Array<[string, Record<string, string>, string | undefined, number, string]> = [
      ['', { 'Content-Type': 'text/csv' }, undefined, 400, 'INVALID_PAYLOAD'],
      ['', { 'Content-Type': 'text/plain' }, 'a', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['?mode=fast', { 'Content-Type': 'text/csv' }, 'label\na\n', 400, 'INVALID_QUERY'],
      // Not read as "no mode" (all rows in one transaction): a list is no mode at all.
      ['?mode[]=batch', { 'Content-Type': 'text/csv' }, 'label\na\n', 400, 'INVALID_QUERY'],
      ['?mode=batch&mode=all', { 'Content-Type': 'text/csv' }, 'label\na\n', 400, 'INVALID_QUERY'],
      ['', { 'Content-Type': 'text/csv' }, `label\n${'a\n'.repeat(3000)}`, 400, 'INVALID_PAYLOAD'],
    ];
    for (const [query, headers, rawBody, status, code] of cases) {
      const response = await app.request('POST', `/utils/import/crates${query}`, {
        token: admin,
        rawBody,
        headers,
      });
      assert.is(response.status, status, `${query} ${headers['Content-Type']}: ${response.text}`);
      assert.is(errorOf(response.body).extensions.code, code);
    }
  });

  test('a CSV header naming an unknown field is 400 naming it, as a JSON row naming it is; nothing written', async (context) => {
    const { app, admin } = context;
    const files: Array<[string, string]> = [
      ['text/csv', 'colour\n'],
      ['text/csv', 'label,colour\r\n\r\n'],
      ['text/csv', 'label,colour\na,red\n'],
      ['application/json', '[{"label":"a","colour":"red"}]'],
      ['application/x-ndjson', '{"label":"a","colour":"red"}\n'],
    ];
    for (const [type, rawBody] of files) {
      const response = await app.request('POST', '/utils/import/crates', {
        token: admin,
        rawBody,
        headers: { 'Content-Type': type },
      });
      assert.is(response.status, 400, `${type} ${JSON.stringify(rawBody)}: ${response.text}`);
      assert.equal(errorOf(response.body).extensions, { code: 'INVALID_PAYLOAD', field: 'colour', row: 1 });
    }
    assert.is(await count(context), 0);
  });

  test('hostile files: a 400 or 409 naming what is wrong, never a 500, nothing written', async (context) => {
    const { app, admin } = context;
    const cases: Array<[string, string, number, Record<string, unknown>]> = [
      ['text/csv', '\ufeff', 400, { code: 'INVALID_PAYLOAD' }],
      ['text/csv', 'label,label\na,b\n', 400, { code: 'INVALID_PAYLOAD', field: 'label', row: 1 }],
      ['text/csv', 'label,count\na,1,2\n', 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['text/csv', 'label,count\na\n', 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['text/csv', 'label,count\na,1\nb,many\n', 400, { code: 'FAILED_VALIDATION', field: 'count', row: 2 }],
      ['text/csv', 'id,label\n1,a\n1,b\n', 409, { code: 'RECORD_NOT_UNIQUE', field: 'id' }],
      // A NUL is valid UTF-8 but no text PostgreSQL stores: refused as in a JSON row, not as a wrong value.
      ['text/csv', 'label\na\nb\u0000c\n', 400, { code: 'INVALID_PAYLOAD', field: 'label', row: 2 }],
      [
        'application/x-ndjson',
        '{"label":"a\\u0000"}',
        400,
        { code: 'INVALID_PAYLOAD', field: 'label', row: 1 },
      ],
      // One line longer than import.maxRecordLength (1,000 here), its quote never closed.
      ['text/csv', `label\n"${'x'.repeat(2000)}`, 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['application/json', `[{"label":"${'x'.repeat(2000)}"}]`, 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['application/json', '{"label":"a"}', 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['application/json', '"label"', 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['application/json', 'label,count\na,1\n', 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['application/json', '[{"label":"a"},null]', 400, { code: 'INVALID_PAYLOAD', row: 2 }],
      ['application/x-ndjson', '[{"label":"a"}]\n', 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      ['application/x-ndjson', `{"label":"${'x'.repeat(2000)}"}`, 400, { code: 'INVALID_PAYLOAD', row: 1 }],
      [
        'application/x-ndjson',
        `${' '.repeat(5000)}\n`,
        400,
        { code: 'INVALID_PAYLOAD', reason: 'MAX_BYTES' },
      ],
      ['application/xml', '<crates/>', 415, { code: 'UNSUPPORTED_MEDIA_TYPE' }],
      // Names an object has by its prototype are no media types either.
      ['constructor', '{"label":"a"}\n', 415, { code: 'UNSUPPORTED_MEDIA_TYPE' }],
      ['__proto__', '{"label":"a"}\n', 415, { code: 'UNSUPPORTED_MEDIA_TYPE' }],
      ['', 'label\na\n', 415, { code: 'UNSUPPORTED_MEDIA_TYPE' }],
    ];
    for (const [type, rawBody, status, extensions] of cases) {
      const response = await app.request('POST', '/utils/import/crates', {
        token: admin,
        rawBody,
        headers: type === '' ? {} : { 'Content-Type': type },
      });
      const label = `${type} ${JSON.stringify(rawBody.slice(0, 40))}: ${response.text.slice(0, 300)}`;
      assert.is(response.status, status, label);
      const { code, field, row, reason } = errorOf(response.body).extensions;
      assert.equal(
        Object.fromEntries(
          Object.entries({ code, field, row, reason }).filter(([, value]) => value !== undefined),
        ),
        extensions,
        label,
      );
    }
    assert.is(await count(context), 0);
  });

  test('uploads of no importable file: a compressed body or a file of another type is 415, a form without a file 400', async (context) => {
    const { app, admin } = context;
    const part = (headers: string, content: string) =>
      `--XX\r\nContent-Disposition: form-data; ${headers}\r\n\r\n${content}\r\n`;
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [
        { 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' },
        'label\na\n',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        { 'Content-Type': 'multipart/form-data; boundary=XX' },
        `${part('name="file"; filename="a.png"\r\nContent-Type: image/png', 'label\na')}--XX--\r\n`,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        { 'Content-Type': 'multipart/form-data; boundary=XX' },
        `${part('name="title"', 'crates')}--XX--\r\n`,
        400,
        'INVALID_PAYLOAD',
      ],
      [{ 'Content-Type': 'multipart/form-data' }, 'label\na\n', 400, 'INVALID_PAYLOAD'],
      [
        { 'Content-Type': 'multipart/form-data; boundary=XX' },
        `${part('name="file"; filename="toString"\r\nContent-Type: constructor', '{"label":"a"}')}--XX--\r\n`,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
    ];
    for (const [headers, rawBody, status, code] of cases) {
      const response = await app.request('POST', '/utils/import/crates', { token: admin, rawBody, headers });
      assert.is(response.status, status, `${JSON.stringify(headers)}: ${response.text}`);
      assert.is(errorOf(response.body).extensions.code, code);
    }
    // A file whose part says nothing of its type is read by its name's extension.
    const byExtension = await app.request('POST', '/utils/import/crates', {
      token: admin,
      rawBody: `${part('name="file"; filename="crates.CSV"\r\nContent-Type: application/octet-stream', 'label\r\nz')}--XX--\r\n`,
      headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
    });
    assert.equal([byExtension.status, byExtension.body], [200, { inserted: 1 }], byExtension.text);
    assert.is(await count(context), 1);
  });

  test('a file declaring a charset other than UTF-8 is 415, as body or part, never stored as other text', async (context) => {
    const { app, admin } = context;
    const part = (type: string) =>
      `--XX\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: ${type}\r\n\r\nlabel\r\ncafé\r\n--XX--\r\n`;
    // UTF-8 bytes said to be Latin-1 would otherwise be stored as the UTF-8 reading, not the text declared.
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'Content-Type': 'text/csv; charset=iso-8859-1' }, 'label\ncafé\n'],
      [{ 'Content-Type': 'application/x-ndjson; charset=windows-1252' }, '{"label":"café"}\n'],
      [{ 'Content-Type': 'application/json; charset=latin1' }, '[{"label":"café"}]'],
      [{ 'Content-Type': 'multipart/form-data; boundary=XX' }, part('text/csv; charset=ISO-8859-1')],
    ];
    for (const [headers, rawBody] of cases) {
      const response = await app.request('POST', '/utils/import/crates', { token: admin, rawBody, headers });
      assert.is(response.status, 415, `${JSON.stringify(headers)}: ${response.text}`);
      assert.is(errorOf(response.body).extensions.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
    assert.is(await count(context), 0);
    for (const headers of [
      { 'Content-Type': 'text/csv; charset=UTF8' },
      { 'Content-Type': 'multipart/form-data; boundary=XX' },
    ]) {
      const rawBody = headers['Content-Type'].startsWith('multipart')
        ? part('text/csv; charset=utf-8')
        : 'label\ncafé\n';
      const response = await app.request('POST', '/utils/import/crates', { token: admin, rawBody, headers });
      assert.equal([response.status, response.body], [200, { inserted: 1 }], response.text);
    }
    const labels = await app.request('GET', '/items/crates?fields=label', { token: admin });
    assert.equal(labels.body, [{ label: 'café' }, { label: 'café' }]);
  });

  test('a multipart upload cut short is 400, nothing written', async (context) => {
    const body =
      '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nlabel\na\n';
    const response = await context.app.request('POST', '/utils/import/crates', {
      token: context.admin,
      rawBody: body,
      headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
    });
    assert.is(response.status, 400, response.text);
    assert.is(errorOf(response.body).extensions.code, 'INVALID_PAYLOAD');
    assert.is(await count(context), 0);
  });

  test('an anonymous caller is 401, an unknown collection 403 for non-admins', async ({ app, clerk }) => {
    const anonymous = await app.request('POST', '/utils/import/crates', {
      rawBody: 'label\na\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    assert.is(anonymous.status, 401);
    const unknown = await app.request('POST', '/utils/import/nothing', {
      token: clerk,
      rawBody: 'label\na\n',
      headers: { 'Content-Type': 'text/csv' },
    });
    assert.is(unknown.status, 403);
  });

  test.run();
}
