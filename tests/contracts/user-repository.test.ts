import { persistenceTargets } from '../support/databases.ts';
import { userRepositoryContract } from './user-repository.contract.ts';

for (const target of persistenceTargets()) userRepositoryContract(target).run();
