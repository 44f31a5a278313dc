import { backends } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { refreshTokenRepositoryContract } from './refresh-token-repository.contract.ts';

for (const backend of backends()) refreshTokenRepositoryContract(backend.persistence()).run();
for (const backend of backends()) refreshTokenRepositoryContract(cached(backend.persistence())).run();
