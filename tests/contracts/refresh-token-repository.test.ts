import { persistenceTargets } from '../support/databases.ts';
import { refreshTokenRepositoryContract } from './refresh-token-repository.contract.ts';

for (const target of persistenceTargets()) refreshTokenRepositoryContract(target).run();
