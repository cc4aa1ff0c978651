/**
 * What `npm start` makes on the local Solana ledger, once (a restart finds it all and makes nothing twice): the
 * development stablecoin mint (6 decimals), a stock-token mint per catalogue asset (9 decimals, the Solana entry of
 * domain/chains.ts), the issuer's treasury (its associated stablecoin account), a pool of durable nonce accounts with
 * the issuer as nonce authority, and funded development wallets (SOL and stablecoin). The issuer — mint authority of
 * every mint, fee payer, nonce authority — is the Solana attestation signer's key (ATTESTATION_SOLANA_SECRET_KEY, or
 * the development key in DATA_DIR/signer-keys.json): a hot key, as the EVM quote signer is.
 *
 * Every address is derived, so the same issuer key finds the same accounts whatever happened: the mints and nonce
 * accounts from the issuer's seed (chains/solana-accounts.ts: only the issuer can create them), the development wallets
 * from a public seed (like anvil's mnemonic — development only). Each step reads before it writes; all of it goes
 * through JSON-RPC only, waiting for `confirmed`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  getBase58Decoder,
  lamports,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getCreateAccountInstruction, getNonceSize } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { z } from 'zod';
import { SOLANA_STABLECOIN_SYMBOL, solanaIssuerSigner, solanaMintSigner, solanaNonceSigner } from '../chains/solana-accounts';
import { nonceAccountCreation, sendInstructions } from '../chains/solana-ledger';
import { SOLANA_STABLECOIN_DECIMALS, SOLANA_TOKEN_DECIMALS, solanaTreasury } from '../chains/solana-context';
import type { Logger } from '../config/logger';
import { DEV_KEY_FILE, SOLANA_KEY_VARIABLE, type SignerKeys } from '../signing';
import { solanaSecretKeySchema } from '../signing/key-schemas';
import { nonceAuthority, parseMint, parseTokenAccount } from '../solana-ledger/accounts';

/** SOL the issuer keeps for fees and rent (topped up from the ledger's faucet below a tenth of it). */
const ISSUER_SOL = 1_000n * 1_000_000_000n;
/** SOL and stablecoin (6 decimals) each development wallet holds. */
const WALLET_SOL = 100n * 1_000_000_000n;
const WALLET_STABLECOIN = 1_000_000n * 10n ** BigInt(SOLANA_STABLECOIN_DECIMALS);
const DEV_WALLET_COUNT = 3;
/** Accounts created per transaction (each new account signs; four keep a transaction under 1232 bytes). */
const ACCOUNTS_PER_TRANSACTION = 4;
const CONFIRMATION_TIMEOUT_MS = 60_000;

/** `chains["solana-900"]` of .data/stack.json. */
export interface SolanaStackChain {
  rpcUrl: string;
  /** The issuer: mint authority, fee payer, nonce authority. */
  mintAuthority: string;
  /** Each stock token's mint by symbol, and the stablecoin's under `USD`. */
  mints: Record<string, string>;
  stablecoinMint: string;
  /** The issuer's stablecoin token account. */
  treasury: string;
  /** Durable nonce accounts, the issuer their nonce authority. */
  noncePool: string[];
}

/** `solanaWallets` of .data/stack.json: `secretKey` is base58 of the 64-byte seed ‖ public key (what wallets import). */
export interface SolanaDevWallet {
  address: string;
  secretKey: string;
}

const base58 = getBase58Decoder();
const sha256 = (text: string) => new Uint8Array(createHash('sha256').update(text).digest());

/** The issuer's 64-byte Solana secret key: the configured attestation signer key, or the development one. */
export function issuerSolanaSecretKey(settings: { keys: SignerKeys; dataDir: string }): Uint8Array {
  const configured = settings.keys[SOLANA_KEY_VARIABLE];
  if (configured) return configured;
  const file = path.join(settings.dataDir, DEV_KEY_FILE);
  const parsed = z.object({ solanaSecretKey: solanaSecretKeySchema }).parse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.solanaSecretKey;
}

/** The development wallets' keys: public seeds, like anvil's development accounts. */
async function devWalletSigner(index: number): Promise<{ signer: KeyPairSigner; secretKey: string }> {
  const seed = sha256(`tokenized-stock-issuer development solana wallet ${index}`);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed, true);
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', signer.keyPair.publicKey));
  return { signer, secretKey: base58.decode(new Uint8Array([...seed, ...publicKey])) };
}

export interface SolanaSetupParameters {
  rpcUrl: string;
  issuerSecretKey: Uint8Array;
  /** Catalogue symbols, each given a mint. */
  symbols: readonly string[];
  noncePoolSize: number;
  /** Airdrops from the ledger's faucet (the local ledger); false on a cluster, where the issuer must hold SOL. */
  faucet: boolean;
  /** Make and fund the development wallets. */
  wallets: boolean;
  logger: Logger;
}

export async function ensureSolanaSetup(parameters: SolanaSetupParameters): Promise<{ chain: SolanaStackChain; wallets: SolanaDevWallet[]; transactions: number }> {
  const { rpcUrl, logger } = parameters;
  const rpc = createSolanaRpc(rpcUrl);
  const issuer = await solanaIssuerSigner(parameters.issuerSecretKey);
  const accounts = async (keys: Address[]) => (await rpc.getMultipleAccounts(keys, { encoding: 'base64', commitment: 'confirmed' }).send()).value;
  const stored = (account: NonNullable<Awaited<ReturnType<typeof accounts>>[number]>) => ({
    lamports: account.lamports.toString(),
    owner: account.owner,
    data: account.data[0],
    executable: account.executable,
  });
  let made = 0;

  const confirm = async (signature: Signature) => {
    const deadline = Date.now() + CONFIRMATION_TIMEOUT_MS;
    for (;;) {
      const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
      if (status?.err) throw new Error(`Solana set-up transaction ${signature} failed: ${JSON.stringify(status.err, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`);
      if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return;
      if (Date.now() > deadline) throw new Error(`Solana set-up transaction ${signature} not confirmed within ${CONFIRMATION_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const submit = async (instructions: Instruction[]) => {
    await confirm(await sendInstructions(rpc, issuer, instructions));
    made += 1;
  };
  const topUpSol = async (owner: Address, target: bigint) => {
    const { value: balance } = await rpc.getBalance(owner, { commitment: 'confirmed' }).send();
    if (balance >= target / 10n) return;
    if (!parameters.faucet) throw new Error(`Solana set-up: ${owner} holds ${balance} lamports; fund it on ${rpcUrl}`);
    await confirm(await rpc.requestAirdrop(owner, lamports(target - balance)).send());
    made += 1;
  };
  /** Creates, in batches, each account of `wanted` that does not exist yet; one that exists must pass `check`. */
  const ensureAccounts = async (
    wanted: { signer: KeyPairSigner; what: string }[],
    create: (signer: KeyPairSigner) => Promise<Instruction[]>,
    check: (account: ReturnType<typeof stored>) => boolean,
  ) => {
    const found = await accounts(wanted.map((entry) => entry.signer.address));
    const missing: KeyPairSigner[] = [];
    wanted.forEach((entry, index) => {
      const account = found[index];
      if (!account) missing.push(entry.signer);
      else if (!check(stored(account))) throw new Error(`Solana set-up: ${entry.what} ${entry.signer.address} exists but is not what the issuer made (another issuer key?)`);
    });
    for (let start = 0; start < missing.length; start += ACCOUNTS_PER_TRANSACTION) {
      const batch = missing.slice(start, start + ACCOUNTS_PER_TRANSACTION);
      await submit((await Promise.all(batch.map(create))).flat());
    }
  };

  await topUpSol(issuer.address, ISSUER_SOL);

  // The mints: the stablecoin and one per stock token, the issuer their mint authority.
  const mintRent = await rpc.getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
  const mintSpecs = [
    { symbol: SOLANA_STABLECOIN_SYMBOL, decimals: SOLANA_STABLECOIN_DECIMALS },
    ...parameters.symbols.map((symbol) => ({ symbol, decimals: SOLANA_TOKEN_DECIMALS })),
  ];
  const mintSigners = await Promise.all(mintSpecs.map((spec) => solanaMintSigner(parameters.issuerSecretKey, spec.symbol)));
  const decimalsOf = new Map(mintSigners.map((signer, index) => [signer.address, mintSpecs[index]!.decimals]));
  await ensureAccounts(
    mintSigners.map((signer, index) => ({ signer, what: `the ${mintSpecs[index]!.symbol} mint` })),
    async (signer) => [
      getCreateAccountInstruction({ payer: issuer, newAccount: signer, lamports: mintRent, space: getMintSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: signer.address, decimals: decimalsOf.get(signer.address)!, mintAuthority: issuer.address }),
    ],
    (account) => parseMint(account)?.mintAuthority === issuer.address,
  );
  const stablecoinMint = mintSigners[0]!.address;

  // The treasury: the issuer's associated stablecoin account.
  const treasury = await solanaTreasury(issuer.address, stablecoinMint);
  if (!(await accounts([treasury]))[0]) {
    await submit([getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: treasury, owner: issuer.address, mint: stablecoinMint })]);
  }

  // The nonce pool: durable nonce accounts, the issuer their nonce authority.
  const nonceRent = await rpc.getMinimumBalanceForRentExemption(BigInt(getNonceSize())).send();
  const nonceSigners = await Promise.all(Array.from({ length: parameters.noncePoolSize }, (_, index) => solanaNonceSigner(parameters.issuerSecretKey, index)));
  await ensureAccounts(
    nonceSigners.map((signer, index) => ({ signer, what: `nonce account ${index}` })),
    async (signer) => nonceAccountCreation(issuer, signer, nonceRent),
    (account) => nonceAuthority(account) === issuer.address,
  );

  // The development wallets: SOL for fees, stablecoin in their associated accounts.
  const wallets: SolanaDevWallet[] = [];
  if (parameters.wallets) {
    for (let index = 1; index <= DEV_WALLET_COUNT; index += 1) {
      const { signer, secretKey } = await devWalletSigner(index);
      await topUpSol(signer.address, WALLET_SOL);
      const [account] = await findAssociatedTokenPda({ owner: signer.address, mint: stablecoinMint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      const existing = (await accounts([account]))[0];
      const balance = existing ? (parseTokenAccount(stored(existing))?.amount ?? 0n) : 0n;
      if (balance < WALLET_STABLECOIN) {
        await submit([
          getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: account, owner: signer.address, mint: stablecoinMint }),
          getMintToInstruction({ mint: stablecoinMint, token: account, mintAuthority: issuer, amount: WALLET_STABLECOIN - balance }),
        ]);
      }
      wallets.push({ address: signer.address, secretKey });
    }
  }

  const chain: SolanaStackChain = {
    rpcUrl,
    mintAuthority: issuer.address,
    mints: Object.fromEntries(mintSpecs.map((spec, index) => [spec.symbol, mintSigners[index]!.address])),
    stablecoinMint,
    treasury,
    noncePool: nonceSigners.map((signer) => signer.address),
  };
  logger.info({ rpcUrl, mints: mintSpecs.length, noncePool: chain.noncePool.length, wallets: wallets.length, transactions: made }, 'Solana accounts ready');
  return { chain, wallets, transactions: made };
}
