// Prints the configuration reference generated from the schema; with --write, puts it into README.md.
// Run: node --import tsx scripts/config-reference.ts [--write]
import { readFileSync, writeFileSync } from 'node:fs';
import { configReference, withConfigReference } from '../src/adapters/config/config-reference.ts';

const README = new URL('../README.md', import.meta.url);

if (process.argv.includes('--write')) {
  writeFileSync(README, withConfigReference(readFileSync(README, 'utf8')));
  console.log('README.md: configuration reference regenerated.');
} else {
  console.log(configReference());
}
