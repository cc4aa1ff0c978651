/** The AccessControl role ids of the contracts (keccak256 of the role name; the admin role is zero). */
import { keccak256, toBytes, type Hex } from 'viem';

const role = (name: string): Hex => keccak256(toBytes(name));

export const ROLES = {
  admin: `0x${'00'.repeat(32)}`,
  minter: role('MINTER_ROLE'),
  burner: role('BURNER_ROLE'),
  pauser: role('PAUSER_ROLE'),
  registrar: role('REGISTRAR_ROLE'),
  submitter: role('SUBMITTER_ROLE'),
  brokerSigner: role('BROKER_SIGNER_ROLE'),
} as const satisfies Record<string, Hex>;
