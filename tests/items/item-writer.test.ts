import { collectionsTargets } from './collections-target.ts';
import { itemWriterContract } from './item-writer.contract.ts';

for (const target of collectionsTargets()) itemWriterContract(target.name, target).run();
