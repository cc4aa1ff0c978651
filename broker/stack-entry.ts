/**
 * The `"broker"` entry of `.data/stack.json`: where the sandbox listens, the participant credential, its signer, the
 * seeded accounts, and the issuer's own account id (the `{account_id}` of the issuer's callbacks and reads).
 */
import type { Address } from 'viem';
import type { Credential } from './queries/credentials';
import type { SandboxAccount } from './seed';

export interface BrokerStackEntry {
  url: string;
  key: string;
  secret: string;
  /** The broker's EIP-712 signer address (grant it BROKER_SIGNER_ROLE on the issuer contracts). */
  signer: Address;
  /** The issuer's account at the broker: the issuer calls back and reads under `/v1/accounts/{issuerAccountId}/…`. */
  issuerAccountId: string;
  accounts: SandboxAccount[];
}

export function brokerStackEntry(input: {
  url: string;
  brokerCredential: Credential;
  signer: { address: Address };
  issuerAccountId: string;
  accounts: SandboxAccount[];
}): BrokerStackEntry {
  return {
    url: input.url,
    key: input.brokerCredential.key,
    secret: input.brokerCredential.secret,
    signer: input.signer.address,
    issuerAccountId: input.issuerAccountId,
    accounts: input.accounts,
  };
}
