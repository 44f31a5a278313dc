import { backends } from '../support/databases.ts';
import { itemStoreContract } from './item-store.contract.ts';

for (const backend of backends()) itemStoreContract(backend.collections()).run();
