/**
 * The Solana attestation's transaction rebuilt from the attestation's fields, as the issuer built it (one legacy
 * transaction, fee payer the user, a durable nonce's lifetime): a buy advances the nonce, creates the user's stock
 * account, pays the stablecoin to the treasury, mints the tokens and names the attestation in a memo; a sell burns the
 * tokens and is paid from the treasury instead. Pure: a verifier compares it byte for byte with `additionalData`.
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Address,
  type Instruction,
  type Nonce,
  type Transaction,
} from '@solana/kit';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getBurnCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { SPL_MEMO_PROGRAM_ADDRESS, attestationAmounts, isBuy, solanaAttestationMemo, type AttestationFields } from './attestation.ts';

/** The issuer's accounts the signers publish: its key, the stablecoin mint and treasury, the decimals. */
export interface SolanaIssuerAccounts {
  issuer: Address;
  stablecoinMint: Address;
  stablecoinDecimals: number;
  treasury: Address;
  stockDecimals: number;
}

async function associatedTokenAccount(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

async function tradeInstructions(attestation: AttestationFields, accounts: SolanaIssuerAccounts, userAddress: Address): Promise<Instruction[]> {
  const { tokens, stablecoin } = attestationAmounts(attestation, accounts.stockDecimals, accounts.stablecoinDecimals);
  if (tokens <= 0n || stablecoin <= 0n) throw new Error('the trade rounds to nothing');
  const user = createNoopSigner(userAddress);
  const issuer = createNoopSigner(accounts.issuer);
  const stockMint = address(attestation.assetAddress);
  const memo: Instruction = { programAddress: address(SPL_MEMO_PROGRAM_ADDRESS), data: new TextEncoder().encode(solanaAttestationMemo(attestation.attestationId)) };
  const userStock = await associatedTokenAccount(userAddress, stockMint);
  const userStablecoin = await associatedTokenAccount(userAddress, accounts.stablecoinMint);
  const { stablecoinMint, stablecoinDecimals, treasury, stockDecimals } = accounts;
  if (isBuy(attestation)) {
    return [
      getCreateAssociatedTokenIdempotentInstruction({ payer: user, ata: userStock, owner: userAddress, mint: stockMint }),
      getTransferCheckedInstruction({ source: userStablecoin, mint: stablecoinMint, destination: treasury, authority: user, amount: stablecoin, decimals: stablecoinDecimals }),
      getMintToCheckedInstruction({ mint: stockMint, token: userStock, mintAuthority: issuer, amount: tokens, decimals: stockDecimals }),
      memo,
    ];
  }
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer: user, ata: userStablecoin, owner: userAddress, mint: stablecoinMint }),
    getBurnCheckedInstruction({ account: userStock, mint: stockMint, authority: user, amount: tokens, decimals: stockDecimals }),
    getTransferCheckedInstruction({ source: treasury, mint: stablecoinMint, destination: userStablecoin, authority: issuer, amount: stablecoin, decimals: stablecoinDecimals }),
    memo,
  ];
}

/** The attestation's transaction for `user` on the nonce it holds, compiled and signed by nobody. */
export async function rebuildSolanaAttestationTransaction(
  attestation: AttestationFields,
  accounts: SolanaIssuerAccounts,
  lifetime: { user: Address; nonceAccount: Address; nonce: string },
): Promise<Transaction> {
  const instructions = await tradeInstructions(attestation, accounts, lifetime.user);
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (draft) => setTransactionMessageFeePayer(lifetime.user, draft),
    (draft) =>
      setTransactionMessageLifetimeUsingDurableNonce(
        { nonce: lifetime.nonce as Nonce, nonceAccountAddress: lifetime.nonceAccount, nonceAuthorityAddress: accounts.issuer },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  return compileTransaction(message);
}
