# Two commands set up a fresh machine: `make run` and `make test`. Both install what they need first.
.PHONY: install run test check format bench

NODE_MODULES := node_modules/.package-lock.json

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NODE_MODULES)

run: install
	node bin/datagate.mjs serve

test: install
	node scripts/test.mjs

check: install
	npx tsc --noEmit
	npx biome check .

format: install
	npx biome check --write .

# Not part of `test`: needs PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432) and pgbench; see bench/README.md.
bench: install
	node --import tsx bench/run.ts
