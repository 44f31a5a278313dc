import { compileErrors, validate } from '@readme/openapi-parser';
import * as assert from 'uvu/assert';

/** Fails the test unless `document` is valid OpenAPI (3.1 here), by a validator that is not ours. */
export async function assertValidOpenApi(document: unknown): Promise<void> {
  // The validator dereferences in place; the caller's copy stays as the server sent it.
  const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
  assert.ok(result.valid, result.valid ? '' : compileErrors(result));
  assert.equal(result.warnings, [], 'validator warnings');
}
