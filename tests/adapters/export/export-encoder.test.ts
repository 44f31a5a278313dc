import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exportEncoder } from '../../../src/adapters/export/export-encoder.ts';
import { arrayElements, objectValues } from '../../../src/adapters/export/json-text-parts.ts';

const parts = suite('cutting JSON text without parsing it');

parts('array elements as written, whatever their strings and nesting hold', () => {
  const items = [
    '{"a":"x,y]}","b":[1,{"c":"\\"}"}]}',
    '"a string, with \\\\ and \\" inside"',
    '1e21',
    '[]',
    '{}',
    'null',
    '{"k":"\\\\"}',
  ];
  assert.equal(arrayElements(`[${items.join(',')}]`), items);
  assert.equal(arrayElements('[]'), []);
  assert.equal(arrayElements('[ 1 , [2, 3] ]'), ['1', '[2, 3]']);
  for (const item of items) assert.not.throws(() => JSON.parse(item));
});

parts('object member values in order, as written, keys with escapes and colons skipped', () => {
  assert.equal(objectValues('{"a":1,"b\\":\\"":"v:w","c":{"d": [1, "x,y"]},"e":null}'), [
    '1',
    '"v:w"',
    '{"d": [1, "x,y"]}',
    'null',
  ]);
  assert.equal(objectValues('{}'), []);
  assert.equal(objectValues('{"a" : 2 }'), ['2']);
});

parts.run();

const encoder = suite('export file formats');

const PAGES = ['[{"id":1,"t":"a,b"},{"id":2,"t":null}]', '[{"id":3,"t":""}]'];

function file(format: 'csv' | 'json' | 'ndjson', pages = PAGES): { text: string; rows: number } {
  const encode = exportEncoder(format, ['id', 't']);
  let text = encode.head;
  let rows = 0;
  for (const page of pages) {
    const written = encode.page(page);
    text += written.text;
    rows += written.rows;
  }
  return { text: text + encode.tail, rows };
}

encoder('json: one array across pages, items untouched', () => {
  assert.equal(file('json'), { text: '[{"id":1,"t":"a,b"},{"id":2,"t":null},{"id":3,"t":""}]', rows: 3 });
  assert.equal(file('json', []), { text: '[]', rows: 0 });
});

encoder('ndjson: an item a line', () => {
  assert.equal(file('ndjson'), { text: '{"id":1,"t":"a,b"}\n{"id":2,"t":null}\n{"id":3,"t":""}\n', rows: 3 });
  assert.equal(file('ndjson', []), { text: '', rows: 0 });
});

encoder('csv: header, CRLF, null empty and "" for the empty string', () => {
  assert.equal(file('csv'), { text: 'id,t\r\n1,"a,b"\r\n2,\r\n3,""\r\n', rows: 3 });
  assert.equal(file('csv', []), { text: 'id,t\r\n', rows: 0 });
  const quoted = exportEncoder('csv', ['v']).page(
    '[{"v":"cr\\rlf\\n, \\"q\\" ✓"},{"v":true},{"v":[1,"a"]},{"v":-0.5}]',
  );
  assert.is(quoted.text, '"cr\rlf\n, ""q"" ✓"\r\ntrue\r\n"[1,""a""]"\r\n-0.5\r\n');
});

encoder("csv: a json field's string that reads as JSON is written as its JSON text, others bare", () => {
  const strings = ['42', 'true', '{"a":1}', '"x"', ' [1] ', 'hello', '', 'a "b"'];
  const page = JSON.stringify(strings.map((text) => ({ doc: text, t: text })));
  const { text } = exportEncoder('csv', ['doc', 't'], { jsonFields: new Set(['doc']) }).page(page);
  assert.is(
    text,
    [
      '"""42""",42',
      '"""true""",true',
      '"""{\\""a\\"":1}""","{""a"":1}"',
      '"""\\""x\\""""","""x"""',
      '""" [1] """, [1] ',
      'hello,hello',
      '"",""',
      '"a ""b""","a ""b"""',
      '',
    ].join('\r\n'),
  );
});

encoder(
  'csv with escapeFormulas: a text a spreadsheet would run gets a leading quote, a number does not',
  () => {
    const texts = [
      '=1+1',
      '+cmd',
      '-2+3',
      '@SUM(A1)',
      '\tx',
      '\rx',
      "'=x",
      'a=b',
      '-5',
      '+1.5e3',
      '-Infinity',
    ];
    const items = [
      { t: -7, doc: -7 },
      ...texts.map((text) => ({ t: text, doc: text })),
      { t: null, doc: { a: '=x' } },
    ];
    const escaped = exportEncoder('csv', ['t', 'doc'], {
      jsonFields: new Set(['doc']),
      escapeFormulas: true,
    });
    assert.is(
      escaped.page(JSON.stringify(items)).text,
      [
        '-7,-7',
        "'=1+1,'=1+1",
        "'+cmd,'+cmd",
        "'-2+3,'-2+3",
        "'@SUM(A1),'@SUM(A1)",
        "'\tx,'\tx",
        `"'\rx","'\rx"`,
        "'=x,'=x",
        'a=b,a=b',
        // A json field's string that reads as JSON is JSON text already (`"-5"`), which no spreadsheet runs.
        '-5,"""-5"""',
        '+1.5e3,+1.5e3',
        "'-Infinity,'-Infinity",
        ',"{""a"":""=x""}"',
        '',
      ].join('\r\n'),
    );
    // A header cell too: a column of a table made by hand may be named so.
    assert.is(exportEncoder('csv', ['id', '=cmd'], { escapeFormulas: true }).head, "id,'=cmd\r\n");
    // Without it, every text is written as it is, so that the file imports back exactly.
    assert.is(exportEncoder('csv', ['t']).page('[{"t":"=1+1"},{"t":"@x"}]').text, '=1+1\r\n@x\r\n');
  },
);

encoder.run();
