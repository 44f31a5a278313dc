import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tuneHeapForServing } from '../../src/adapters/serving-heap.ts';

const settingsFor = (execArgv: string[], nodeOptions = '') => {
  const set: string[] = [];
  tuneHeapForServing(execArgv, nodeOptions, (setting) => set.push(setting));
  return set;
};

const BOTH = ['--heap-growing-percent=60', '--no-allocation-site-pretenuring'];

const scenarios: Array<{ name: string; execArgv: string[]; nodeOptions?: string; set: string[] }> = [
  { name: 'nothing chosen: both set', execArgv: [], set: BOTH },
  {
    name: 'unrelated flags: both set',
    execArgv: ['--enable-source-maps', '--max-old-space-size=512'],
    set: BOTH,
  },
  { name: 'heap growth chosen', execArgv: ['--heap-growing-percent=30'], set: [BOTH[1]!] },
  { name: 'heap growth chosen, underscores', execArgv: ['--heap_growing_percent=30'], set: [BOTH[1]!] },
  { name: 'pretenuring kept on', execArgv: ['--allocation-site-pretenuring'], set: [BOTH[0]!] },
  {
    name: 'pretenuring off by the operator',
    execArgv: ['--no-allocation_site_pretenuring'],
    set: [BOTH[0]!],
  },
  {
    name: 'both in NODE_OPTIONS',
    execArgv: [],
    nodeOptions: '--heap-growing-percent=20  --allocation-site-pretenuring',
    set: [],
  },
];

for (const scenario of scenarios) {
  test(`serving heap: ${scenario.name}`, () => {
    assert.equal(settingsFor(scenario.execArgv, scenario.nodeOptions), scenario.set);
  });
}

test.run();
