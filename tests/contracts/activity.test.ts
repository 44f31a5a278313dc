import { backends } from '../support/databases.ts';
import { activityContract } from './activity.contract.ts';

for (const backend of backends()) activityContract(backend.persistence()).run();
