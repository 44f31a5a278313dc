import { CachingAccessTokens } from '../../src/adapters/tokens/caching-access-tokens.ts';
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

// The verified-token cache in front of both real formats keeps every promise of the contract.
accessTokensContract(
  'CachingAccessTokens over JoseAccessTokens',
  ({ secret, ttlMs }) => new CachingAccessTokens(new JoseAccessTokens({ secret, issuer, ttlMs })),
).run();
accessTokensContract(
  'CachingAccessTokens over PasetoAccessTokens',
  ({ secret, ttlMs }) => new CachingAccessTokens(new PasetoAccessTokens({ secret, issuer, ttlMs })),
).run();
