import { backends } from '../support/databases.ts';
import { answerBytesContract } from './answer-bytes.contract.ts';

for (const backend of backends()) answerBytesContract(backend.collections()).run();
