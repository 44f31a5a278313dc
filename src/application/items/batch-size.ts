import { invalidPayload } from '../../domain/errors.ts';

/** One request writes at most `batchMax` items, however it names them (a list, keys or a query). */
export function requireBatchSize(count: number, batchMax: number): void {
  if (count > batchMax) throw invalidPayload(`At most ${batchMax} items in one request.`);
}
