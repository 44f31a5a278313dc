import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * The README's "Architecture" section names each folder of `src/` as its path from the repository root in
 * backticks, with a trailing slash (`src/adapters/http/openapi/`): a name a reader can search for, and one
 * this test can find without parsing prose.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

function architectureSection(): string {
  const start = readme.search(/^## Architecture$/m);
  assert.ok(start >= 0, 'README.md has no "## Architecture" heading');
  const next = readme.slice(start + 1).search(/^## /m);
  return next < 0 ? readme.slice(start) : readme.slice(start, start + 1 + next);
}

function foldersUnder(dir: string): string[] {
  return readdirSync(`${root}${dir}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const folder = `${dir}${entry.name}/`;
      return [folder, ...foldersUnder(folder)];
    });
}

/** Every `src/…` path the section writes in backticks: folders end in `/`, files do not. */
function namedPaths(section: string): string[] {
  return [...section.matchAll(/`(src\/[^`\s]*)`/g)].map((match) => match[1]!);
}

const section = architectureSection();
const named = namedPaths(section);

test('the Architecture section names every folder of src/', () => {
  const missing = foldersUnder('src/').filter((folder) => !named.includes(folder));
  assert.equal(
    missing,
    [],
    `README.md's Architecture section does not name: ${missing.join(', ')} (add a line \`<folder>/\` — what lives there)`,
  );
});

test('every src/ path the Architecture section names exists', () => {
  const gone = named.filter((path) => {
    if (!existsSync(`${root}${path}`)) return true;
    return path.endsWith('/') !== statSync(`${root}${path}`).isDirectory();
  });
  assert.equal(
    gone,
    [],
    `README.md's Architecture section names what is not in the tree (a folder ends in /, a file does not): ${gone.join(', ')}`,
  );
});

test.run();
