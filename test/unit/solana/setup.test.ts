/**
 * npm start's Solana set-up (start/solana-setup.ts) and part (start/solana.ts) on the local ledger, through JSON-RPC:
 * the mints, treasury, nonce pool and funded development wallets are made once — run again, and again after the
 * ledger restarted from its state, the set-up finds the same addresses and sends nothing; SOLANA_RPC_URL skips the
 * local ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit';
import { createLogger } from '../../../config/logger';
import { CATALOGUE } from '../../../domain/catalogue';
import { nonceAuthority, parseMint, parseTokenAccount } from '../../../solana-ledger/accounts';
import { startSolanaLedger, type SolanaLedger } from '../../../solana-ledger';
import { encodeBase58 } from '../../../signing';
import { SOLANA_STABLECOIN_SYMBOL, solanaMintSigner, solanaNonceSigner } from '../../../chains/solana-accounts';
import { deriveSolanaContext } from '../../../chains/solana-context';
import { ensureSolanaSetup, type SolanaSetupParameters } from '../../../start/solana-setup';
import { startSolana } from '../../../start/solana';
import { rpcCall, rpcResult } from '../../support/solana';

const logger = createLogger({ level: 'silent' });
const running: { stop(): Promise<void> }[] = [];
let directory: string;

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'solana-setup-'));
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((part) => part.stop()));
  rmSync(directory, { recursive: true, force: true });
});

async function ledger(): Promise<SolanaLedger> {
  const started = await startSolanaLedger({ stateDirectory: path.join(directory, 'solana'), slotMs: 20, confirmedLag: 1, finalizedLag: 3 });
  running.push(started);
  return started;
}

function issuerSecretKey(): Uint8Array {
  const seed = randomBytes(32);
  return new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);
}

async function account(url: string, address: string) {
  const { value } = await rpcResult<{ value: { lamports: number; owner: string; data: [string, string]; executable: boolean } | null }>(url, 'getAccountInfo', [
    address,
    { commitment: 'confirmed', encoding: 'base64' },
  ]);
  return value ? { lamports: String(value.lamports), owner: value.owner, data: value.data[0], executable: value.executable } : undefined;
}

describe("npm start's Solana set-up", () => {
  test('makes the mints, treasury, nonce pool and funded wallets once: a second run and a restart find the same and send nothing', async () => {
    const secretKey = issuerSecretKey();
    const issuer = encodeBase58(secretKey.subarray(32));
    const first = await ledger();
    const symbols = CATALOGUE.map((asset) => asset.symbol);
    const parameters = (rpcUrl: string): SolanaSetupParameters => ({ rpcUrl, issuerSecretKey: secretKey, symbols, noncePoolSize: 5, faucet: true, wallets: true, logger });

    const made = await ensureSolanaSetup(parameters(first.rpcUrl));
    expect(made.transactions).toBeGreaterThan(0);
    const { chain, wallets } = made;
    expect(Object.keys(chain.mints).sort()).toEqual([SOLANA_STABLECOIN_SYMBOL, ...symbols].sort());
    expect(chain.stablecoinMint).toBe(chain.mints[SOLANA_STABLECOIN_SYMBOL]);
    expect(chain.mintAuthority).toBe(issuer);
    // Derived from the issuer's key: what signs later finds them without stack.json.
    expect(chain.mints['AAPLon']).toBe((await solanaMintSigner(secretKey, 'AAPLon')).address);
    expect(chain.noncePool[4]).toBe((await solanaNonceSigner(secretKey, 4)).address);
    expect(parseMint(await account(first.rpcUrl, chain.stablecoinMint))).toMatchObject({ decimals: 6, mintAuthority: issuer, freezeAuthority: null });
    for (const symbol of symbols) expect(parseMint(await account(first.rpcUrl, chain.mints[symbol]!))).toMatchObject({ decimals: 9, mintAuthority: issuer, supply: 0n });
    expect(parseTokenAccount(await account(first.rpcUrl, chain.treasury))).toMatchObject({ mint: chain.stablecoinMint, owner: issuer });
    expect(chain.noncePool).toHaveLength(5);
    // What the API and the worker derive from the issuer key is what the set-up made.
    const derived = await deriveSolanaContext({ rpcUrl: first.rpcUrl, issuerSecretKey: secretKey, symbols });
    expect({ issuer: derived.issuer, stablecoinMint: derived.stablecoinMint, treasury: derived.treasury, mints: Object.fromEntries(derived.mints) }).toEqual({
      issuer,
      stablecoinMint: chain.stablecoinMint,
      treasury: chain.treasury,
      mints: Object.fromEntries(symbols.map((symbol) => [symbol, chain.mints[symbol]])),
    });
    for (const nonce of chain.noncePool) expect(nonceAuthority(await account(first.rpcUrl, nonce))).toBe(issuer);
    expect(wallets).toHaveLength(3);
    for (const wallet of wallets) {
      const keyPair = await createKeyPairSignerFromBytes(getBase58Encoder().encode(wallet.secretKey));
      expect(keyPair.address).toBe(wallet.address);
      expect((await rpcResult<{ value: number }>(first.rpcUrl, 'getBalance', [wallet.address, { commitment: 'confirmed' }])).value).toBe(100 * 1_000_000_000);
      const tokens = await rpcResult<{ value: { account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }[] }>(first.rpcUrl, 'getTokenAccountsByOwner', [
        wallet.address,
        { mint: chain.stablecoinMint },
        { commitment: 'confirmed', encoding: 'jsonParsed' },
      ]);
      expect(tokens.value.map((entry) => entry.account.data.parsed.info.tokenAmount.amount)).toEqual(['1000000000000']);
    }

    const again = await ensureSolanaSetup(parameters(first.rpcUrl));
    expect(again).toEqual({ chain, wallets, transactions: 0 });

    await first.stop();
    running.splice(0);
    const restarted = await ledger();
    const afterRestart = await ensureSolanaSetup(parameters(restarted.rpcUrl));
    expect(afterRestart).toEqual({ chain: { ...chain, rpcUrl: restarted.rpcUrl }, wallets, transactions: 0 });
  });

  test('SOLANA_RPC_URL skips the local ledger; an unreachable one stops the start naming it', async () => {
    const cluster = await ledger();
    const configured = await startSolana({ SOLANA_RPC_URL: cluster.rpcUrl, SOLANA_RPC_PORT: 1, DATA_DIR: directory }, logger);
    expect(configured).toMatchObject({ rpcUrl: cluster.rpcUrl, local: false });
    await configured.stop();
    const local = await startSolana({ SOLANA_RPC_URL: undefined, SOLANA_RPC_PORT: cluster.port, DATA_DIR: path.join(directory, 'other') }, logger).catch((error: Error) => error);
    expect(local).toMatchObject({ code: 'EADDRINUSE' }); // the port is the cluster's: the local ledger was asked for and could not listen
    await expect(startSolana({ SOLANA_RPC_URL: 'http://127.0.0.1:1', SOLANA_RPC_PORT: 1, DATA_DIR: directory }, logger)).rejects.toThrow('Solana RPC http://127.0.0.1:1 unreachable');
    expect((await rpcCall(cluster.rpcUrl, 'getHealth')).result).toBe('ok');
  });
});
