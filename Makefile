# Two commands set up a fresh machine: `make run` and `make test`. Both install what they need first.
.PHONY: install build run chromium test check format bench bench-start bench-realtime bench-studio bench-thumbnails bench-storage soak soak-fuzz soak-sizes stress

NODE_MODULES := node_modules/.package-lock.json

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NODE_MODULES)

# The server runs from a tsc build bundled by esbuild, and a first start on the embedded database copies the
# fresh cluster made here (docs/decisions/0006, 0042). bin/datagate.mjs runs the bundle while it is newer than
# every source, else the sources; tests run it so. dist/pglite-cluster-<version>/ survives a rebuild.
BUILT := dist/bundle/datagate.js
SOURCES := $(shell find src -name '*.ts') mikro-orm.config.ts tsconfig.json tsconfig.build.json scripts/bundle.ts

$(BUILT): $(NODE_MODULES) $(SOURCES)
	rm -rf dist/src dist/bundle
	npx tsc -p tsconfig.build.json
	node --import tsx scripts/bundle.ts
	@touch $@

# The studio (studio/, a Vite + Preact app) is built to dist/studio/, which the server serves at /studio.
STUDIO := dist/studio/index.html
STUDIO_SOURCES := $(shell find studio -type f -not -path '*/node_modules/*')

$(STUDIO): $(NODE_MODULES) $(STUDIO_SOURCES)
	npx vite build --config studio/vite.config.ts --logLevel warn
	@touch $@

build: $(BUILT) $(STUDIO)

run: build
	node $(BUILT) serve

# tests/browser drives Debian's chromium: installed here where we may (root with apt-get). Elsewhere, or when
# the install fails, that test counts itself as skipped and says why.
CHROMIUM := /usr/bin/chromium

chromium:
	@if [ ! -x $(CHROMIUM) ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium for tests/browser"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
	    || echo "chromium could not be installed: tests/browser will be skipped"; \
	fi

# The build first: the command-line, docs and fault suites run `bin/datagate.mjs`, which takes the bundle while
# it is current (what `make run` ships) and copies its ready-made embedded cluster on a first start instead of
# running initdb (decision 0042); without them each of those commands starts from the sources, several times slower.
test: install build chromium
	node scripts/test.mjs

check: install
	npx tsc --noEmit
	npx tsc -p studio/tsconfig.json
	npx biome check .
	npx depcruise src studio/src --config .dependency-cruiser.cjs

format: install
	npx biome check --write .

# Not part of `test`: needs PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432) and pgbench; see bench/README.md.
bench: build
	node --import tsx bench/run.ts

# Issue 14's embedded start: first starts and restarts on PGlite, time and CPU to healthy, RSS; see bench/README.md.
bench-start: build
	node --import tsx bench/embedded-start.ts

# Issue 16's realtime fan-out figures (1,000 WebSocket subscribers, 100 changes/s); see bench/README.md.
bench-realtime: build
	node --import tsx bench/realtime-fanout.ts

# Issue 20's studio: the first screen of 1,000,000 cargos in Chromium (needs PostgreSQL, as bench); see bench/README.md.
bench-studio: build chromium
	node --import tsx bench/studio-first-screen.ts

# Issue 19's image transforms: thumbnails per second with the transform queue full, and peak RSS; no database.
bench-thumbnails: install
	node --import tsx bench/thumbnails.ts

# Issue 19's file stores: upload and download MB/s of each against cp and the server's own file functions; see bench/README.md.
bench-storage: install
	node --import tsx bench/storage.ts

# Not part of `test`: needs PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432); see soak/README.md.
soak: build
	node --import tsx soak/run.ts
	$(MAKE) soak-fuzz
	$(MAKE) soak-sizes

# The API fuzzer (tests/security/api-fuzz.test.ts) with many more runs than `make test` gives it, on memory and on
# PostgreSQL (DATABASE_URL's server unless TEST_DATABASE_URL is set), from a new seed each time (printed; replay
# a failure with FUZZ_SEED=<seed>). FUZZ_RUNS=5000 per backend takes about 5 minutes here.
soak-fuzz: install
	TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}}" \
	FUZZ_RUNS="$${FUZZ_RUNS:-5000}" FUZZ_SEED="$${FUZZ_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}" \
	TEST_TIMEOUT_MS="$${TEST_TIMEOUT_MS:-3600000}" node scripts/test.mjs tests/security 'api-fuzz[.]test[.]ts$$'

# The tests whose sizes `make test` cuts for time (docs/decisions/0079), at their full sizes: 1 GiB through
# the server and 512 MB through each file store in constant memory, an export of 200,000 rows of 1 KB in
# constant memory, a 100,000-row export → import round trip, and an import of 100,000 rows.
soak-sizes: build
	TEST_DATABASE_URL="$${TEST_DATABASE_URL:-$${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}}" \
	FILES_MEMORY_MB="$${FILES_MEMORY_MB:-1024}" FILE_STORAGE_MEMORY_MB="$${FILE_STORAGE_MEMORY_MB:-512}" \
	TEST_EXPORT_MEMORY_ROWS="$${TEST_EXPORT_MEMORY_ROWS:-200000}" TEST_ROUND_TRIP_ROWS="$${TEST_ROUND_TRIP_ROWS:-100000}" \
	TEST_IMPORT_ROWS="$${TEST_IMPORT_ROWS:-100000}" TEST_TIMEOUT_MS="$${TEST_TIMEOUT_MS:-3600000}" \
	node scripts/test.mjs tests '(files-memory|file-storage-memory|export-memory|export-import-round-trip|import-items)[.]test[.]ts$$'

# Not part of `test`: needs PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432); see stress/README.md.
stress: build
	node --import tsx stress/run.ts
	node --import tsx soak/memory-bound.ts
