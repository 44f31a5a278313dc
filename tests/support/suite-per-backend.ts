import type { Test } from 'uvu';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { Backend, PersistenceTarget } from './databases.ts';
import { skippableSuite } from './skippable-suite.ts';

/**
 * One suite per backend of `from` (`backends()`, or `databaseBackends()` for what needs SQL), titled by
 * `title`, each with a lease on its backend's persistence that the suite's `after` hook must end with
 * `target.dispose()`. A backend that cannot run here still gets its suite, its cases counted as skipped.
 */
export function suitePerBackend<State, P extends Persistence = Persistence>(
  from: readonly Backend<P>[],
  title: (backend: string) => string,
): Array<[PersistenceTarget<P>, Test<State>]> {
  return from.map((backend) => {
    const target = backend.persistence();
    return [target, skippableSuite<State>(title(backend.name), backend.skip)];
  });
}
