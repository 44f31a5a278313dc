import { backends } from '../support/databases.ts';
import { itemWriterContract } from './item-writer.contract.ts';

for (const backend of backends()) itemWriterContract(backend.collections()).run();
