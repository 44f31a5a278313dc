import { InMemoryAccessTokens } from '../../src/adapters/tokens/in-memory-access-tokens.ts';
import { JoseAccessTokens } from '../../src/adapters/tokens/jose-access-tokens.ts';
import { PasetoAccessTokens } from '../../src/adapters/tokens/paseto-access-tokens.ts';
import { accessTokensContract } from './access-tokens.contract.ts';

const issuer = 'datagate-contract';

accessTokensContract('InMemoryAccessTokens', ({ ttlMs }) => new InMemoryAccessTokens(ttlMs)).run();
accessTokensContract(
  'JoseAccessTokens',
  ({ secret, ttlMs }) => new JoseAccessTokens({ secret, issuer, ttlMs }),
).run();
accessTokensContract(
  'PasetoAccessTokens',
  ({ secret, ttlMs }) => new PasetoAccessTokens({ secret, issuer, ttlMs }),
).run();
