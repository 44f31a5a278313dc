import { backends } from '../support/databases.ts';
import { existingColumnTypesContract } from './existing-column-types.contract.ts';

for (const backend of backends()) existingColumnTypesContract(backend.collections()).run();
