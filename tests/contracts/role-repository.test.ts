import { persistenceTargets } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { roleRepositoryContract } from './role-repository.contract.ts';

for (const target of persistenceTargets()) roleRepositoryContract(target).run();
for (const target of persistenceTargets()) roleRepositoryContract(cached(target)).run();
