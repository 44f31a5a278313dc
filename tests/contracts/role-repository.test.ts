import { persistenceTargets } from '../support/databases.ts';
import { roleRepositoryContract } from './role-repository.contract.ts';

for (const target of persistenceTargets()) roleRepositoryContract(target).run();
