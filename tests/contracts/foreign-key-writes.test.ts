import { backends } from '../support/databases.ts';
import { foreignKeyWritesContract } from './foreign-key-writes.contract.ts';

for (const backend of backends()) foreignKeyWritesContract(backend.collections()).run();
