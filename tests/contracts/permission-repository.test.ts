import { backends } from '../support/databases.ts';
import { cached } from './cached-target.ts';
import { permissionRepositoryContract } from './permission-repository.contract.ts';

for (const backend of backends()) permissionRepositoryContract(backend.persistence()).run();
for (const backend of backends()) permissionRepositoryContract(cached(backend.persistence())).run();
