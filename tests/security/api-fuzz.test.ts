import fc from 'fast-check';
import * as assert from 'uvu/assert';
import type { Persistence } from '../../src/adapters/persistence/persistence.ts';
import { isSystemCollection } from '../../src/domain/schema/collection-schema.ts';
import { backends, borrowed, type PersistenceTarget } from '../support/databases.ts';
import { suitePerBackend } from '../support/suite-per-backend.ts';
import { callerBreach, headerBreach } from './fuzz/answer-rules.ts';
import { contractBreach, statusesByCode } from './fuzz/error-contract.ts';
import { fingerprintOf, StoredState } from './fuzz/fingerprint.ts';
import { type Fixture, startFixture } from './fuzz/fuzz-fixture.ts';
import { describeRequest, type FuzzRequest, inputClasses, requestsFor, send } from './fuzz/fuzz-request.ts';
import { type FuzzOperation, fuzzOperations, registeredRoutes } from './fuzz/operations.ts';
import type { SchemaContext } from './fuzz/schema-values.ts';

/**
 * A fuzzer over the whole API (issue 12): sequences of generated requests, for every operation of the
 * route table (described by the admin's OpenAPI document, or by hand where the document is silent), with
 * valid, boundary and hostile values in every parameter, body member and header, from every kind of
 * caller, against a live server on each backend. Each run starts from the fixture as made. The properties:
 * never a 5xx; every error in the contract's shape with the status docs/api.md §2 gives its code; the
 * headers every answer carries (§1); an anonymous caller never hears 403 and a bad token never gets past
 * authentication (§2, §3); and a refused write changes nothing stored.
 *
 * Fixed seed by default, so a failure reproduces: FUZZ_SEED=<n> to change it, FUZZ_RUNS=<n> for more
 * runs (`make soak-fuzz` runs many), FUZZ_PATH=<path> (printed with a failure) to replay just that one.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_412);
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : undefined;
/** fast-check's path of a failure (printed with it): replays that one run, shrunk, at once. */
const PATH = process.env.FUZZ_PATH;
/** Runs per backend in `make test`: together about half a minute on a loaded two-core machine. */
const DEFAULT_RUNS: Record<string, number> = { memory: 500, postgresql: 300 };
const MAX_REQUESTS_PER_RUN = 10;

/** Methods whose refusal must leave every table as it was. */
const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

const statuses = statusesByCode();

type Context = {
  operations: FuzzOperation[];
  schemas: SchemaContext['schemas'];
  fresh: () => Promise<{ fixture: Fixture; persistence: Persistence }>;
};

type Tally = { requests: number; statuses: Map<number, number> };

// PGlite is left out: PostgreSQL is what production runs, and memory is the reference the SQL must match.
const fuzzed = backends().filter((backend) => backend.name !== 'pglite');

for (const [target, test] of suitePerBackend<Context>(fuzzed, (backend) => `api fuzzer on ${backend}`)) {
  test.before(async (context) => {
    context.fresh = async () => {
      const persistence = await emptied(target);
      return { fixture: await startFixture(persistence), persistence };
    };
    const { fixture } = await context.fresh();
    try {
      const { operations, missing } = fuzzOperations(
        fixture.document,
        registeredRoutes(fixture.app.container),
      );
      context.operations = operations;
      context.schemas = fixture.document.components.schemas;
      console.log(
        `api fuzzer on ${target.name}: ${operations.length} operations; seed ${SEED} (FUZZ_SEED), runs ${RUNS ?? DEFAULT_RUNS[target.name]} (FUZZ_RUNS)`,
      );
      console.log(
        `  fuzzed from the hand-written list rather than the admin's GET /server/specs/oas: ${missing.join(', ')}`,
      );
    } finally {
      await fixture.app.close();
    }
  });
  test.after(async () => {
    // The database is shared by the test files of this process: leave it without the fuzzer's tables.
    await emptied(target);
    await target.dispose();
  });

  test('the fingerprint of what is stored sees a write to any table', async ({ fresh }) => {
    const { fixture, persistence } = await fresh();
    try {
      const fingerprint = fingerprintOf(persistence);
      const admin = fixture.callers.admin.token;
      const writes: Array<[string, string, unknown]> = [
        ['PATCH', `/items/cargos/${fixture.pools.key[0]}`, { crates: 4 }],
        ['POST', '/roles', { name: 'Another' }],
        ['PATCH', `/users/${fixture.pools.userId[1]}`, { first_name: 'Ada' }],
        ['DELETE', `/permissions/${fixture.pools.permissionId[0]}`, undefined],
        ['POST', '/fields/notes', { field: 'extra', type: 'integer' }],
        ['POST', '/auth/login', { email: fixture.pools.email[1], password: fixture.pools.password[1] }],
      ];
      for (const [method, path, body] of writes) {
        const before = await fingerprint();
        const response = await fixture.app.request(method, path, { token: admin, body });
        assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
        assert.is.not(await fingerprint(), before, `${method} ${path} is seen`);
      }
    } finally {
      await fixture.app.close();
    }
  });

  test('every operation: never a 5xx, errors as docs/api.md §2 says, nothing written on a refusal', async ({
    operations,
    schemas,
    fresh,
  }) => {
    const runs = RUNS ?? DEFAULT_RUNS[target.name]!;
    const tally: Tally = { requests: 0, statuses: new Map() };
    const worlds = new Worlds(fresh);
    const anyRequest = fc.oneof(...operations.map((operation) => requestsFor(operation, { schemas })));
    const started = performance.now();
    const details = await fc.check(
      fc.asyncProperty(
        fc.array(anyRequest, { minLength: 1, maxLength: MAX_REQUESTS_PER_RUN }),
        async (requests) => {
          const { fixture, stored } = await worlds.next();
          const run: Run = { earlier: [], written: false };
          for (const request of requests) await check(request, fixture, stored, tally, run);
        },
      ),
      { seed: SEED, numRuns: runs, ...(PATH ? { path: PATH } : {}) },
    );
    await worlds.close();
    // fast-check's own report prints the whole generated sequence, megabytes of it; the failing request
    // and its answer, as check() describes them, are what a reader needs, with what replays them.
    if (details.failed) {
      const cause =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : String(details.errorInstance);
      assert.unreachable(
        `after ${details.numRuns} runs (shrunk ${details.numShrinks} times; replay: FUZZ_SEED=${SEED} FUZZ_PATH=${details.counterexamplePath}):\n${cause}`,
      );
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const byStatus = [...tally.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`);
    console.log(`  ${runs} runs, ${tally.requests} requests in ${seconds} s: ${byStatus.join(' ')}`);
  });

  test.run();
}

/**
 * One run so far: its requests and their statuses (a failure may depend on them; described only then, as
 * describing costs as much as sending), and whether one wrote.
 */
type Run = { earlier: Array<{ request: FuzzRequest; status: number }>; written: boolean };

async function check(
  request: FuzzRequest,
  fixture: Fixture,
  stored: StoredState,
  tally: Tally,
  run: Run,
): Promise<void> {
  const before = WRITES.has(request.method) ? await stored.now() : undefined;
  stored.changing();
  const response = await send(request, fixture);
  tally.requests++;
  tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
  const problems: string[] = [];
  const classes = inputClasses(request, fixture.pools);
  if (response.status >= 500) problems.push(`answered ${response.status}`);
  for (const breach of [
    contractBreach(response, request.method, statuses),
    headerBreach(response, request.route),
    callerBreach(request.caller, request.method, request.route, response, {
      asMade: !run.written,
      illFormedText: classes.has('nul') || classes.has('lone-surrogate'),
    }),
  ]) {
    if (breach) problems.push(breach);
  }
  if (before !== undefined && response.status >= 400 && (await stored.now()) !== before) {
    problems.push('a refused write changed what is stored');
  }
  if (problems.length > 0) {
    const described = run.earlier.map(
      ({ request, status }) =>
        `  ${describeRequest(request, fixture).split('\n')[0]!.slice(0, 300)} → ${status}`,
    );
    const earlier = described.length ? `\nafter, in the same run:\n${described.join('\n')}` : '';
    assert.unreachable(
      `${problems.join('; ')}\n${describeRequest(request, fixture)}\n  answer: ${response.status} ${response.text.slice(0, 500)}${earlier}`,
    );
  }
  run.earlier.push({ request, status: response.status });
  if (WRITES.has(request.method) && response.status < 300) run.written = true;
}

/**
 * The fixture each run starts from. Making one costs a few hundred milliseconds on PostgreSQL, so a run
 * gets the previous run's when that left everything stored as it was made (only refusals and reads).
 */
class Worlds {
  private current: { fixture: Fixture; stored: StoredState; pristine: string } | undefined;

  constructor(private readonly make: Context['fresh']) {}

  async next(): Promise<{ fixture: Fixture; stored: StoredState }> {
    if (this.current && (await this.current.stored.now()) === this.current.pristine) return this.current;
    await this.close();
    const { fixture, persistence } = await this.make();
    const stored = new StoredState(fingerprintOf(persistence));
    this.current = { fixture, stored, pristine: await stored.now() };
    return this.current;
  }

  async close() {
    await this.current?.fixture.app.close();
    this.current = undefined;
  }
}

/** A new store, or the shared database with its system tables emptied (by the target) and its user tables dropped. */
async function emptied(target: PersistenceTarget): Promise<Persistence> {
  const persistence = borrowed(await target.fresh());
  const snapshot = await persistence.schema.refresh();
  for (const name of snapshot.collections.keys()) {
    // The files' collection is a system table the catalog presents, not a user table.
    if (!isSystemCollection(name)) await persistence.schemaEditor.dropCollection(name);
  }
  await persistence.schema.refresh();
  return persistence;
}
