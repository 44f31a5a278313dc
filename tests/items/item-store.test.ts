import { collectionsTargets } from './collections-target.ts';
import { itemStoreContract } from './item-store.contract.ts';

for (const target of collectionsTargets()) itemStoreContract(target.name, target).run();
