// The layer rule, checked by `make check` (docs/decisions/0008-layer-rule-checked-by-dependency-cruiser.md):
//   npx depcruise src --config .dependency-cruiser.cjs
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

/** May import anything: it is where the concrete classes meet. */
const COMPOSITION_ROOT = '^src/(container|main|cli|cli-commands)[.]ts$|^src/modules/';

/**
 * Packages the domain may use. Both are pure functions of their input, with no I/O and no framework
 * (uuid's v7 reads the time, which is what an id is for; time as a value is passed in everywhere else).
 */
const DOMAIN_PACKAGES = [
  '^node_modules/ms/', // '1h' ↔ milliseconds, for the `$NOW(-1 day)` dynamic values of filters
  '^node_modules/uuid/', // v7 ids of new items
];

/**
 * Node built-ins the application may use. The handlers make ids and opaque secrets themselves
 * (randomUUID, randomBytes, a SHA-256 digest); a port for randomness would only matter to a test
 * that wants fixed ids, and none does. dependency-cruiser names `node:crypto` without its `node:`.
 */
const APPLICATION_PACKAGES = ['^crypto$'];

const folders = (dir) =>
  readdirSync(join(__dirname, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/**
 * Every folder of src/adapters is one technology, except persistence, whose folders are each one
 * (memory, mikro-orm, postgres). Read from the tree, so that a new adapter folder is under the rule
 * from its first file.
 */
const TECHNOLOGIES = [
  ...folders('src/adapters')
    .filter((name) => name !== 'persistence')
    .map((name) => `${name}/`),
  ...folders('src/adapters/persistence').map((name) => `persistence/${name}/`),
];

/** Technology-neutral helpers any adapter may import. */
const NEUTRAL = [
  // The files at the top of src/adapters (lru-map.ts, the bounded map behind every in-process cache)
  // import no technology; the rule `neutral-adapter-helpers` keeps it so.
  '^src/adapters/[^/]+$',
  // The shape of the configuration (AppConfig), so that an adapter can take its own slice of it;
  // types only, the rule `config-schema-types-only` sees to that.
  '^src/adapters/config/config-schema[.]ts$',
];

/** Further exceptions, per technology, each with the reason it is not a leak between technologies. */
const EXCEPTIONS = {
  // How a failed connection to PostgreSQL reads, in words safe to show: no driver import, only error
  // codes and messages. The CLI prints it when it cannot reach the database.
  'cli/': ['^src/adapters/persistence/database-unreachable[.]ts$'],
  // The throttle's PostgreSQL store meets the same connection failures as the persistence adapters
  // and must answer them alike (503).
  'throttle/': ['^src/adapters/persistence/database-unreachable[.]ts$'],
  // So do the locks on resumable uploads, on a pool of their own: a full pool or a lost database is a 503.
  'tus/': ['^src/adapters/persistence/database-unreachable[.]ts$'],
  // The in-memory item store is PostgreSQL's twin: it takes PostgreSQL's column types and the wording
  // of the refusals a write meets from the same files as the PostgreSQL store, so that both answer the
  // same. Neither file imports a driver.
  'persistence/memory/': [
    '^src/adapters/persistence/postgres/column-types[.]ts$',
    '^src/adapters/persistence/postgres/write-refusals[.]ts$',
  ],
  // Realtime shapes events in process with the in-memory twin's JSON formatting, which answers
  // byte-identical to PostgreSQL's (docs/decisions/0031): pure functions, no store state.
  'realtime/': [
    '^src/adapters/persistence/memory/in-memory-item-json[.]ts$',
    '^src/adapters/persistence/memory/in-memory-related-rows[.]ts$',
  ],
  // The PostgreSQL persistence opens the item store (kysely) on the connection MikroORM opened for the
  // system tables: one database, one pool, two query builders; and the item store's read replicas
  // beside it (their pools are kysely's own). The system tables' list queries (/users, /roles,
  // /permissions) compile filters and sorts with the items' own SQL (kysely, no driver), so that a
  // filter means the same on a system collection as on an item collection. A change to a system table
  // records its activity entry in its own transaction with the activity log's insert (kysely, no
  // driver), so that the entry is written one way whoever writes it (docs/decisions/0033).
  'persistence/mikro-orm/': [
    '^src/adapters/persistence/postgres/activity-recording[.]ts$',
    '^src/adapters/persistence/postgres/filter-sql[.]ts$',
    '^src/adapters/persistence/postgres/row-scope[.]ts$',
    '^src/adapters/persistence/postgres/postgres-collections[.]ts$',
    '^src/adapters/persistence/postgres/open-replica-routing[.]ts$',
    // The cache channel (postgres-change-feed.ts) listens with the same connection lifecycle as the
    // change log's wake-ups: one pg client of its own, heartbeat, reconnect with backoff.
    '^src/adapters/persistence/postgres/listening-connection[.]ts$',
    // Files' bytes in large objects (storage.driver: postgres) on that same pool, beside the system tables.
    '^src/adapters/persistence/postgres/postgres-large-object-storage[.]ts$',
  ],
};

/** The files at the top of src/adapters/persistence (the Persistence aggregate, the caching decorators). */
const PERSISTENCE_SHARED = '^src/adapters/persistence/[^/]+$';

const technologyRules = TECHNOLOGIES.map((technology) => ({
  name: `adapters-${technology.replace(/\/$/, '').replace('/', '-')}`,
  comment: `src/adapters/${technology} reaches other technologies only through the ports in src/application/ports`,
  severity: 'error',
  from: { path: `^src/adapters/${technology}` },
  to: {
    path: '^src/adapters/',
    pathNot: [
      `^src/adapters/${technology}`,
      ...NEUTRAL,
      ...(technology.startsWith('persistence/') ? [PERSISTENCE_SHARED] : []),
      ...(EXCEPTIONS[technology] ?? []),
    ],
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'studio-is-a-client',
      comment:
        'studio/ is a browser app that knows the server only through its public API: it imports nothing from src/, and src/ nothing from it',
      severity: 'error',
      from: { path: '^studio/' },
      to: { path: '^src/' },
    },
    {
      name: 'server-knows-no-studio-code',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^studio/' },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports only src/domain and the pure packages in DOMAIN_PACKAGES',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', ...DOMAIN_PACKAGES] },
    },
    {
      name: 'application-sees-domain-and-ports',
      comment:
        'src/application imports only src/domain and src/application (its ports are src/application/ports), ' +
        'and the built-ins in APPLICATION_PACKAGES',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { pathNot: ['^src/domain/', '^src/application/', ...APPLICATION_PACKAGES] },
    },
    ...technologyRules,
    {
      name: 'persistence-shared-is-backend-neutral',
      comment: 'the files at the top of src/adapters/persistence serve every backend, so import none',
      severity: 'error',
      from: { path: PERSISTENCE_SHARED },
      to: { path: '^src/adapters/persistence/[^/]+/' },
    },
    {
      name: 'neutral-adapter-helpers',
      comment: 'the files at the top of src/adapters are shared by every technology, so import none',
      severity: 'error',
      from: { path: '^src/adapters/[^/]+$' },
      to: { path: '^src/adapters/[^/]+/' },
    },
    {
      name: 'config-schema-types-only',
      comment: 'other adapters take the configuration as a value; they do not load or parse it',
      severity: 'error',
      from: { path: '^src/adapters/', pathNot: '^src/adapters/config/' },
      to: { path: '^src/adapters/config/config-schema[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-composition-root',
      comment: 'only the composition root knows the composition root',
      severity: 'error',
      from: { pathNot: COMPOSITION_ROOT },
      to: { path: COMPOSITION_ROOT },
    },
    {
      name: 'no-circular',
      comment: 'a cycle, type-only imports included (tsPreCompilationDeps)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'src runs in production, where devDependencies are not installed; types are erased',
      severity: 'error',
      from: { path: '^src/' },
      to: {
        dependencyTypes: ['npm-dev'],
        dependencyTypesNot: ['type-only'],
        pathNot: '^node_modules/@types/',
      },
    },
    {
      name: 'no-non-package-json',
      comment: 'a package that package.json does not name is not installed on a fresh machine',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to no file',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-orphans',
      comment:
        'a source file nothing imports and that imports nothing is dead (a type declaration for a package is read by tsc, not imported)',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: '[.]d[.]ts$' },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: '^node_modules/' },
    // Type-only imports are dependencies too: a cycle through `import type` is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
