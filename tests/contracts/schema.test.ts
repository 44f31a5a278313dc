import { backends } from '../support/databases.ts';
import { schemaContract } from './schema.contract.ts';

for (const backend of backends()) schemaContract(backend.collections()).run();
