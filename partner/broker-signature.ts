/**
 * The broker's EIP-712 signature of an issuance, checked when the issuance arrives as the issuer contract will check
 * it in `processMint`: 65 bytes r‖s‖v with `v` 27 or 28 and `s` at most n/2 (OpenZeppelin's `ECDSA.tryRecover` refuses
 * the rest, which viem would recover all the same), and the `MintRequest` rebuilt from the issuance (the client's id as
 * `clientAccountId`, `qty` in 1e-9 shares) must recover to a signer holding BROKER_SIGNER_ROLE on that chain's issuer
 * contract. The role is read on chain (`hasRole`), memoised briefly per chain and signer; a chain that cannot be read
 * refuses the issuance with CHAIN_UNAVAILABLE rather than accept a signature nobody checked. The signer's nonce must
 * not be used on chain yet (`brokerNonceUsed`, read every time), nor held by another live issuance (where the issuance
 * is stored: one live mint per chain, signer and nonce, see issuance.ts).
 */
import { getAddress, recoverTypedDataAddress, type Address, type Hex, type PublicClient } from 'viem';
import { issuerAbi } from '../contracts/abi';
import { issuerDomain, MINT_REQUEST_TYPES } from '../contracts/mint-request';
import { ROLES } from '../contracts/roles';
import { Decimal } from '../domain/money';
import type { PartnerChain, PartnerNetwork } from '../domain/partner';
import { PartnerRefused } from './errors';

/** Half the order of secp256k1: `ECDSA.tryRecover` refuses an `s` above it (the malleable twin of a signature). */
const SECP256K1_HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** How long one chain's answer about one signer is used before it is read again. */
const ROLE_MEMO_MS = 10_000;

/** What an issuer contract knows of the broker's signers; each throws when the chain cannot be read. */
export interface BrokerSignerDirectory {
  /** Whether `signer` holds BROKER_SIGNER_ROLE. */
  isBrokerSigner(chain: PartnerChain, issuer: Address, signer: Address): Promise<boolean>;
  /** Whether a mint signed by `signer` with `nonce` was processed already (`brokerNonceUsed`). */
  hasUsedNonce(chain: PartnerChain, issuer: Address, signer: Address, nonce: bigint): Promise<boolean>;
}

/** The directory of the chains this process reads (a chain without a client cannot be read). */
export function onChainBrokerSigners(clients: Partial<Record<PartnerChain, PublicClient>>, memoMs = ROLE_MEMO_MS): BrokerSignerDirectory {
  const memo = new Map<string, { holds: Promise<boolean>; expiresAt: number }>();
  return {
    async isBrokerSigner(chain, issuer, signer) {
      const key = `${chain}:${issuer.toLowerCase()}:${signer.toLowerCase()}`;
      const now = Date.now();
      const known = memo.get(key);
      if (known && known.expiresAt > now) return await known.holds;
      const client = clients[chain];
      if (!client) throw new Error(`this process reads no RPC of ${chain}`);
      const holds = client.readContract({ address: issuer, abi: issuerAbi, functionName: 'hasRole', args: [ROLES.brokerSigner, signer] });
      if (memo.size > 10_000) memo.clear();
      memo.set(key, { holds, expiresAt: now + memoMs });
      // A failed read is not remembered: the next issuance asks the chain again.
      holds.catch(() => memo.delete(key));
      return await holds;
    },
    // Read every time: a nonce unused a moment ago may be used now.
    async hasUsedNonce(chain, issuer, signer, nonce) {
      const client = clients[chain];
      if (!client) throw new Error(`this process reads no RPC of ${chain}`);
      return await client.readContract({ address: issuer, abi: issuerAbi, functionName: 'brokerNonceUsed', args: [signer, nonce] });
    },
  };
}

export interface SignedIssuance {
  tokenizationRequestId: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  /** Shares, at most nine decimals. */
  qty: string;
  wallet: Address;
  network: PartnerNetwork;
  clientId: string;
  /** Epoch seconds. */
  created: number;
  /** uint256 decimal string. */
  nonce: string;
  signature: Hex;
}

/** Refuses a signature of a form the contract refuses before recovering anything: not 65 bytes, `v` not 27 or 28, high `s`. */
function checkSignatureForm(signature: Hex): void {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new PartnerRefused('INVALID_BROKER_SIGNATURE', 'broker_signature must be 65 bytes r‖s‖v, as the issuer contract takes it');
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28) {
    throw new PartnerRefused('INVALID_BROKER_SIGNATURE', `broker_signature has v = ${v}; the issuer contract takes only 27 or 28 (add 27 to a recovery id of 0 or 1)`);
  }
  if (s > SECP256K1_HALF_ORDER) {
    throw new PartnerRefused('INVALID_BROKER_SIGNATURE', 'broker_signature has s above n/2, which the issuer contract refuses as malleable (use n − s and flip v)');
  }
}

/**
 * Refuses the issuance unless its signature has a form the contract takes and recovers to a broker signer of the
 * chain's issuer contract; answers that signer.
 */
export async function verifyBrokerSignature(
  signers: BrokerSignerDirectory,
  target: { chain: PartnerChain; chainId: number; issuer: Address },
  issuance: SignedIssuance,
): Promise<Address> {
  checkSignatureForm(issuance.signature);
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: issuerDomain(target.chainId, target.issuer),
      types: MINT_REQUEST_TYPES,
      primaryType: 'MintRequest',
      message: {
        tokenizationRequestId: issuance.tokenizationRequestId,
        underlyingSymbol: issuance.underlyingSymbol,
        tokenSymbol: issuance.tokenSymbol,
        qty: BigInt(new Decimal(issuance.qty).times(1e9).toFixed(0)),
        wallet: getAddress(issuance.wallet),
        network: issuance.network,
        clientAccountId: issuance.clientId,
        created: BigInt(issuance.created),
        nonce: BigInt(issuance.nonce),
      },
      signature: issuance.signature,
    });
  } catch (error) {
    throw new PartnerRefused('INVALID_BROKER_SIGNATURE', `broker_signature is not a valid signature of the mint request: ${(error as Error).message.split('\n')[0]}`);
  }
  let holds: boolean;
  let used: boolean;
  try {
    [holds, used] = await Promise.all([
      signers.isBrokerSigner(target.chain, target.issuer, signer),
      signers.hasUsedNonce(target.chain, target.issuer, signer, BigInt(issuance.nonce)),
    ]);
  } catch (error) {
    throw new PartnerRefused('CHAIN_UNAVAILABLE', `The broker signature cannot be checked now: ${target.chain} cannot be read (${(error as Error).message.split('\n')[0]})`);
  }
  if (!holds) {
    throw new PartnerRefused(
      'INVALID_BROKER_SIGNATURE',
      `broker_signature recovers to ${signer}, which does not hold BROKER_SIGNER_ROLE on the issuer contract on ${issuance.network}: the request was signed by another key, or altered after signing`,
    );
  }
  if (used) {
    throw new PartnerRefused('BROKER_NONCE_USED', `nonce ${issuance.nonce} of broker signer ${signer} was already used by a mint on ${issuance.network}; the issuer contract takes each nonce of a signer once`);
  }
  return signer;
}
