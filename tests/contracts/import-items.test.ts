import { backends } from '../support/databases.ts';
import { importItemsContract } from './import-items.contract.ts';

for (const backend of backends()) importItemsContract(backend.persistence()).run();
