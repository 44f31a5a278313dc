import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import type { PersistenceTarget } from '../support/databases.ts';
import { skippableSuite } from '../support/skippable-suite.ts';
import { aRole } from './fixtures.ts';

/** What every backend promises as a whole: repeatable migration and a health check. */
export function persistenceContract(target: PersistenceTarget) {
  const test = skippableSuite<{ persistence: Persistence }>(`Persistence on ${target.name}`, target.skip);
  test.before.each(async (context) => {
    context.persistence = await target.fresh();
  });
  test.after(() => target.dispose());

  test('migrate() again is a no-op that keeps the data', async ({ persistence }) => {
    const role = aRole();
    await persistence.roles.save(role);
    await persistence.migrate();
    await persistence.migrate();
    assert.equal(await persistence.roles.findById(role.id), role);
  });

  test('the health check reports ok with its response time', async ({ persistence }) => {
    const result = await persistence.health.check();
    assert.is(result.status, 'ok');
    assert.is(result.detail, undefined);
    assert.ok(Number.isFinite(result.responseTimeMs) && result.responseTimeMs >= 0);
  });

  return test;
}
