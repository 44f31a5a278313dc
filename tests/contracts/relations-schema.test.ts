import { backends } from '../support/databases.ts';
import { relationsSchemaContract } from './relations-schema.contract.ts';

for (const backend of backends()) relationsSchemaContract(backend.collections()).run();
