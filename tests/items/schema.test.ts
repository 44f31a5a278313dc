import { collectionsTargets } from './collections-target.ts';
import { schemaContract } from './schema.contract.ts';

for (const target of collectionsTargets()) schemaContract(target.name, target).run();
