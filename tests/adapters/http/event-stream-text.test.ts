import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventText } from '../../../src/adapters/http/sse/event-stream-text.ts';
import { StreamQuota } from '../../../src/adapters/http/sse/stream-quota.ts';

test('an event is its type, id and data lines, ended by a blank line', () => {
  assert.is(eventText('create', '7', '[{"id":1}]'), 'event: create\nid: 7\ndata: [{"id":1}]\n\n');
});

test('each line of the data is a data line of its own, whatever the line break', () => {
  assert.is(eventText('end', null, 'a\nb\r\nc\rd'), 'event: end\ndata: a\ndata: b\ndata: c\ndata: d\n\n');
});

test("an empty id resets the client's last event id", () => {
  assert.is(eventText('resync', '', '{}'), 'event: resync\nid: \ndata: {}\n\n');
});

test('a stream quota counts per user and per address, and takes back what is given back', () => {
  const quota = new StreamQuota(2, 3);
  const first = quota.take('ada', '10.0.0.1');
  quota.take('ada', '10.0.0.1');
  assert.throws(() => quota.take('ada', '10.0.0.2'), /this user/);
  quota.take('bob', '10.0.0.1');
  assert.throws(() => quota.take(null, '10.0.0.1'), /this address/);
  first();
  first();
  quota.take('ada', '10.0.0.2');
  assert.throws(() => quota.take('ada', '10.0.0.3'), /this user/);
});

test.run();
