import { persistenceTargets } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { refreshTokenRepositoryContract } from './refresh-token-repository.contract.ts';

for (const target of persistenceTargets()) refreshTokenRepositoryContract(target).run();
for (const target of persistenceTargets()) refreshTokenRepositoryContract(cached(target)).run();
