import { backends } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { userRepositoryContract } from './user-repository.contract.ts';

for (const backend of backends()) userRepositoryContract(backend.persistence()).run();
for (const backend of backends()) userRepositoryContract(cached(backend.persistence())).run();
