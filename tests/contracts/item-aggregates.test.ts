import { backends } from '../support/databases.ts';
import { itemAggregatesContract } from './item-aggregates.contract.ts';

for (const backend of backends()) itemAggregatesContract(backend.collections()).run();
