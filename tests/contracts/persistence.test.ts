import { backends } from '../support/databases.ts';
import { persistenceContract } from './persistence.contract.ts';

for (const backend of backends()) persistenceContract(backend.persistence()).run();
