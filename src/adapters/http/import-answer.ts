import type { ImportResult } from '../../application/items/import-items.ts';
import { errorResponse } from './error-response.ts';

/**
 * The answer of an import (docs/api.md §13): `{ "inserted": N }`, and in batch mode each chunk's outcome,
 * a refused chunk carrying the error body entry its refusal would have had as a whole answer.
 */
export function importAnswer(result: ImportResult, requestId: string): unknown {
  if (!result.chunks) return { inserted: result.inserted };
  return {
    inserted: result.inserted,
    chunks: result.chunks.map((chunk) =>
      'error' in chunk
        ? { rows: chunk.rows, error: errorResponse(chunk.error, requestId).body.errors[0] }
        : { rows: chunk.rows, inserted: chunk.inserted },
    ),
  };
}
