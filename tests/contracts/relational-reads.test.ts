import { backends } from '../support/databases.ts';
import { relationalReadsContract } from './relational-reads.contract.ts';

for (const backend of backends()) relationalReadsContract(backend.collections()).run();
