import { cachingPersistence } from '../../src/adapters/persistence/caching-persistence.ts';
import type { PersistenceTarget } from '../support/databases.ts';

/**
 * The target with the production caches in front of it, fresh ones for every test: a suite run through
 * it proves the caches keep the repositories' promises, changes across repositories included.
 */
export function cached(target: PersistenceTarget): PersistenceTarget {
  return {
    name: `${target.name}, cached`,
    skip: target.skip,
    fresh: async () => cachingPersistence(await target.fresh()),
    dispose: () => target.dispose(),
  };
}
