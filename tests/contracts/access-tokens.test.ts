import { CachingAccessTokens } from '../../src/adapters/tokens/caching-access-tokens.ts';
import { JoseAccessTokens } from '../../src/adapters/tokens/jose-access-tokens.ts';
import { PasetoAccessTokens } from '../../src/adapters/tokens/paseto-access-tokens.ts';
import { FakeAccessTokens } from '../support/fakes/fake-access-tokens.ts';
import { type AccessTokensTarget, accessTokensContract } from './access-tokens.contract.ts';

const issuer = 'datagate-contract';

const targets: AccessTokensTarget[] = [
  { name: 'FakeAccessTokens', create: ({ ttlMs }) => new FakeAccessTokens(ttlMs) },
  {
    name: 'JoseAccessTokens',
    create: ({ secret, ttlMs }) => new JoseAccessTokens({ secret, issuer, ttlMs }),
  },
  {
    name: 'PasetoAccessTokens',
    create: ({ secret, ttlMs }) => new PasetoAccessTokens({ secret, issuer, ttlMs }),
  },
  // The verified-token cache in front of both real formats keeps every promise of the contract.
  {
    name: 'CachingAccessTokens over JoseAccessTokens',
    create: ({ secret, ttlMs }) => new CachingAccessTokens(new JoseAccessTokens({ secret, issuer, ttlMs })),
  },
  {
    name: 'CachingAccessTokens over PasetoAccessTokens',
    create: ({ secret, ttlMs }) => new CachingAccessTokens(new PasetoAccessTokens({ secret, issuer, ttlMs })),
  },
];

for (const target of targets) accessTokensContract(target).run();
