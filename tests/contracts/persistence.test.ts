import { persistenceTargets } from '../support/databases.ts';
import { persistenceContract } from './persistence.contract.ts';

for (const target of persistenceTargets()) persistenceContract(target).run();
