import { persistenceTargets } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { userRepositoryContract } from './user-repository.contract.ts';

for (const target of persistenceTargets()) userRepositoryContract(target).run();
for (const target of persistenceTargets()) userRepositoryContract(cached(target)).run();
