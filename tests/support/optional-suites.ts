import { suite, type Test } from 'uvu';
import { type PersistenceTarget, persistenceTargets } from './databases.ts';

/** Why PostgreSQL-only cases do not run, or undefined when they do. */
export const postgresMissing = process.env.TEST_DATABASE_URL ? undefined : 'TEST_DATABASE_URL is not set';

/**
 * A suite that needs the PostgreSQL server TEST_DATABASE_URL names. Without one, every case is registered
 * with uvu's `skip`, so the summary counts it as skipped rather than leaving it out, and no hook runs.
 */
export function postgresSuite<T>(title: string): Test<T> {
  return postgresMissing ? skipped(title, postgresMissing) : suite<T>(title);
}

/**
 * A suite whose cases are all counted as skipped, the reason printed once. Its hooks never run, so a case
 * body may rely on what `before` would have set up.
 */
export function skipped<T>(title: string, reason: string): Test<T> {
  console.log(`${title}: skipped, ${reason}`);
  const real = suite<T>(title);
  const ignore = () => {};
  const hook = Object.assign(ignore, { each: ignore });
  const skip = () => real.skip();
  return Object.assign(skip, { only: skip, skip, before: hook, after: hook, run: () => real.run() });
}

/**
 * One suite per backend of `persistenceTargets()`, plus, when TEST_DATABASE_URL is unset, a PostgreSQL
 * suite whose cases are counted as skipped (its target is never used: no hook of it runs).
 */
export function suitePerBackend<T>(title: (backend: string) => string): Array<[PersistenceTarget, Test<T>]> {
  const suites = persistenceTargets().map((target): [PersistenceTarget, Test<T>] => [
    target,
    suite<T>(title(target.name)),
  ]);
  const hasPostgres = suites.some(([target]) => target.name === absentPostgres.name);
  if (postgresMissing && !hasPostgres)
    suites.push([absentPostgres, skipped<T>(title(absentPostgres.name), postgresMissing)]);
  return suites;
}

const absentPostgres: PersistenceTarget = {
  name: 'postgresql',
  fresh: () => Promise.reject(new Error(postgresMissing)),
  dispose: async () => {},
};
