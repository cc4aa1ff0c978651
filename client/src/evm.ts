/**
 * The on-chain step on an EVM chain, with the user's viem wallet: the approval the TokenManager needs when the
 * allowance is short (the stablecoin for a buy, which it pulls the cost in; the stock token for a sell, which it
 * burns), then `mintWithAttestation` or `redeemWithAttestation` with the attestation's quote and signature. The call is
 * simulated first, so a refusal (`QuoteExpired`, `UserIdMismatch`, …) comes back as an `IssuerChainError` naming the
 * contract's error instead of a spent transaction. The wallet must be registered to the account first
 * (`client.wallets.register`): the contract checks the caller's user id. viem (an optional peer) is loaded when first
 * used.
 */
import type { Account, Chain as ViemChain, Hash, PublicClient, TransactionReceipt, Transport, WalletClient } from 'viem';
import type * as ViemModule from 'viem';
import { attestationAmounts, base64ToBytes, bytesToHex, chainOfAttestation, isBuy, type AttestationFields, type Signers } from './attestation.ts';
import { IssuerChainError } from './errors.ts';
import { CHAINS, erc20Abi, tokenManagerAbi, type Chain } from './generated/contracts.ts';
import { evmQuoteOf } from './verify.ts';

type Viem = typeof ViemModule;

/** The stablecoin a chain settles in, as the signers publish it (`evm.settlementTokens`). */
export interface SettlementToken {
  address: string;
  decimals: number;
}

export interface SubmitEvmAttestationParameters {
  attestation: AttestationFields;
  /** The user's wallet (its account is the one registered to the attestation's user id). */
  walletClient: WalletClient<Transport, ViemChain | undefined, Account>;
  publicClient: PublicClient;
  /** `GET /v1/attestations/signers`: the chain's TokenManager (its EIP-712 domain) and settlement token. */
  signers: Signers;
  /** Approve exactly what this trade needs (default), the maximum once, or never (the caller approved already). */
  approval?: 'exact' | 'max' | 'none';
  /** A buy's most stablecoin to pay (default the cost, rounded up) and a sell's least to receive (default the proceeds, rounded down). */
  maxDeposit?: bigint;
  minReceive?: bigint;
  /** The settlement token, when the signers do not publish it. */
  settlementToken?: SettlementToken;
}

export interface SubmitEvmAttestationReturnType {
  hash: Hash;
  receipt: TransactionReceipt;
  /** The TokenManager's id of the execution (its `TradeExecuted` event). */
  executionId: bigint;
  /** The approval sent first, if one was. */
  approvalHash?: Hash;
}

/** The settlement token of `chain`: given, or published by the signers. */
function settlementTokenOf(signers: Signers, chain: Chain, given?: SettlementToken): SettlementToken {
  const published = signers.evm.settlementTokens[chain];
  const token = given ?? published;
  if (!token) throw new Error(`the signers publish no settlement token for ${chain}: pass settlementToken`);
  return token;
}

/** The contract error a viem error carries, as an IssuerChainError; other errors as they are. */
function chainErrorOf({ BaseError, ContractFunctionRevertedError }: Viem, error: unknown): unknown {
  if (!(error instanceof BaseError)) return error;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) {
    const reason = reverted.data?.errorName ?? 'unknown';
    return new IssuerChainError(reason, reverted.data?.args ?? [], `the contract refused: ${reason}${reverted.reason ? ` (${reverted.reason})` : ''}`, error);
  }
  return error;
}

async function ensureAllowance({ maxUint256 }: Viem, p: SubmitEvmAttestationParameters, token: `0x${string}`, spender: `0x${string}`, needed: bigint): Promise<Hash | undefined> {
  const { walletClient, publicClient } = p;
  const owner = walletClient.account.address;
  const allowance = await publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] });
  if (allowance >= needed) return undefined;
  const amount = p.approval === 'max' ? maxUint256 : needed;
  const { request } = await publicClient.simulateContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [spender, amount], account: walletClient.account });
  const hash = await walletClient.writeContract({ ...request, chain: walletClient.chain ?? null });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new IssuerChainError('reverted', [], `the approval ${hash} reverted`);
  return hash;
}

/** Submits the attestation's mint (buy) or redeem (sell) with the user's wallet, approving first when needed. */
export async function submitEvmAttestation(p: SubmitEvmAttestationParameters): Promise<SubmitEvmAttestationReturnType> {
  const { attestation, walletClient, publicClient, signers } = p;
  const viem = await import('viem');
  const chain = chainOfAttestation(attestation);
  if (!chain || CHAINS[chain].kind !== 'evm') throw new Error(`chainId ${attestation.chainId} is not an EVM chain of the product`);
  const domain = signers.evm.domains[chain];
  if (!domain) throw new Error(`the signers publish no TokenManager for ${chain}`);
  const tokenManager = domain.verifyingContract as `0x${string}`;
  const settlement = settlementTokenOf(signers, chain, p.settlementToken);
  const amounts = attestationAmounts(attestation, CHAINS[chain].tokenDecimals, settlement.decimals);
  const quote = evmQuoteOf(attestation);
  const signature = bytesToHex(base64ToBytes(attestation.signature));
  const settlementAddress = settlement.address as `0x${string}`;
  const buy = isBuy(attestation);
  try {
    const approvalHash =
      p.approval === 'none'
        ? undefined
        : buy
          ? await ensureAllowance(viem, p, settlementAddress, tokenManager, p.maxDeposit ?? amounts.stablecoin)
          : await ensureAllowance(viem, p, quote.asset, tokenManager, quote.quantity);
    const account = walletClient.account;
    const hash = buy
      ? await publicClient
          .simulateContract({ address: tokenManager, abi: tokenManagerAbi, functionName: 'mintWithAttestation', args: [quote, signature, settlementAddress, p.maxDeposit ?? amounts.stablecoin], account })
          .then(({ request }) => walletClient.writeContract({ ...request, chain: walletClient.chain ?? null }))
      : await publicClient
          .simulateContract({ address: tokenManager, abi: tokenManagerAbi, functionName: 'redeemWithAttestation', args: [quote, signature, settlementAddress, p.minReceive ?? amounts.stablecoin], account })
          .then(({ request }) => walletClient.writeContract({ ...request, chain: walletClient.chain ?? null }));
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new IssuerChainError('reverted', [], `the transaction ${hash} reverted`);
    const [executed] = viem.parseEventLogs({ abi: tokenManagerAbi, eventName: 'TradeExecuted', logs: receipt.logs });
    if (!executed) throw new IssuerChainError('unknown', [], `the transaction ${hash} executed no trade`);
    return { hash, receipt, executionId: executed.args.executionId, ...(approvalHash ? { approvalHash } : {}) };
  } catch (error) {
    throw chainErrorOf(viem, error);
  }
}
