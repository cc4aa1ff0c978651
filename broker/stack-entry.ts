/** The `"broker"` entry of `.data/stack.json`: where the sandbox listens, the participant credential, its signer, the seeded accounts. */
import type { Address } from 'viem';
import type { Credential } from './queries/credentials';
import type { SandboxAccount } from './seed';

export interface BrokerStackEntry {
  url: string;
  key: string;
  secret: string;
  /** The broker's EIP-712 signer address (grant it BROKER_SIGNER_ROLE on the issuer contracts). */
  signer: Address;
  accounts: SandboxAccount[];
}

export function brokerStackEntry(input: { url: string; brokerCredential: Credential; signer: { address: Address }; accounts: SandboxAccount[] }): BrokerStackEntry {
  return {
    url: input.url,
    key: input.brokerCredential.key,
    secret: input.brokerCredential.secret,
    signer: input.signer.address,
    accounts: input.accounts,
  };
}
