import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { mustBe, payloadIssueMessage } from '../../../src/adapters/http/payload-issue-message.ts';

const shape = z.strictObject({
  name: z.string(),
  count: z.number().int().min(1).max(10).optional(),
  tags: z.array(z.string()).max(2).optional(),
  code: z.string().min(3).optional(),
  mode: z.enum(['a', 'b', 'c']).optional(),
  only: z.literal('json').optional(),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
  choice: z.union([z.object({ a: z.string() }), z.array(z.string())]).optional(),
  rule: z
    .record(z.string(), z.unknown(), { error: mustBe('a JSON object or null') })
    .nullable()
    .optional(),
  nested: z
    .object({ flag: z.boolean(), even: z.number().optional() })
    .superRefine(({ even }, context) => {
      if (even !== undefined && even % 2 === 1)
        context.addIssue({
          code: 'custom',
          path: ['even'],
          params: { mustBe: 'even: odd counts are refused' },
        });
    })
    .optional(),
});

/** The message the first issue gets, as the JSON body reader asks for it. */
function messageFor(body: unknown): string {
  const result = shape.safeParse(body, { error: payloadIssueMessage });
  if (result.success) throw new Error(`${JSON.stringify(body)} was accepted`);
  return result.error.issues[0]!.message;
}

test('each kind of misfit is worded by the member it is about and what that must be', () => {
  const table: ReadonlyArray<[unknown, string]> = [
    [[], 'Request body must be a JSON object.'],
    [{}, '"name" is required.'],
    [{ name: 1 }, '"name" must be a string.'],
    [{ name: 'n', count: 1.5 }, '"count" must be an integer.'],
    [{ name: 'n', count: 0 }, '"count" must be at least 1.'],
    [{ name: 'n', count: 11 }, '"count" must be at most 10.'],
    [{ name: 'n', tags: ['a', 'b', 'c'] }, '"tags" must hold at most 2 entries.'],
    [{ name: 'n', tags: [1] }, '"tags.0" must be a string.'],
    [{ name: 'n', code: 'ab' }, '"code" must be at least 3 characters long.'],
    [{ name: 'n', mode: 'd' }, '"mode" must be one of "a", "b" or "c".'],
    [{ name: 'n', only: 'xml' }, '"only" must be "json".'],
    [{ name: 'n', value: {} }, '"value" must be a string, a number, true or false, or null.'],
    [{ name: 'n', choice: 1 }, '"choice" must be a JSON object or an array.'],
    [{ name: 'n', choice: { a: 1 } }, '"choice" must be of one of the accepted shapes.'],
    [{ name: 'n', rule: [] }, '"rule" must be a JSON object or null.'],
    [{ name: 'n', nested: { flag: 'yes' } }, '"nested.flag" must be true or false.'],
    [{ name: 'n', nested: { flag: true, even: 3 } }, '"nested.even" must be even: odd counts are refused.'],
    [{ name: 'n', extra: 1 }, 'Unknown member "extra".'],
  ];
  for (const [body, message] of table) assert.is(messageFor(body), message, JSON.stringify(body));
});

test('no message quotes zod', () => {
  for (const body of [[], { name: 1 }, { name: 'n', mode: 'd' }, { name: 'n', value: {} }]) {
    assert.not.match(
      messageFor(body),
      /Invalid input|Invalid option|expected|received/,
      JSON.stringify(body),
    );
  }
});

test.run();
