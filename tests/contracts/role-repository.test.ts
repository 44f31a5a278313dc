import { backends } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { roleRepositoryContract } from './role-repository.contract.ts';

for (const backend of backends()) roleRepositoryContract(backend.persistence()).run();
for (const backend of backends()) roleRepositoryContract(cached(backend.persistence())).run();
