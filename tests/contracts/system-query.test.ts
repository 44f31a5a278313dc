import { backends } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { systemQueryContract } from './system-query.contract.ts';

for (const backend of backends()) systemQueryContract(backend.persistence()).run();
for (const backend of backends()) systemQueryContract(cached(backend.persistence())).run();
