/**
 * The broker's signature against the real `Issuer` contract on a local anvil chain: the contract's
 * `hashMintRequest` of the request rebuilt from the issuance body alone (`clientAccountId` its `client_id`) is the
 * digest the broker signed, and `processMint` accepts the submission as the issuer would pass it on (qty in 1e-9
 * shares, qty × 1e18 token base units minted), and refuses it replayed or altered.
 */
import request from 'supertest';
import { createPublicClient, createWalletClient, hashTypedData, http, recoverAddress, defineChain, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { mintRequestTypedData } from '../../broker';
import { anvilDevAccount, startAnvil, type RunningAnvil } from '../../chains/anvil';
import { deployContracts, type DeployedContracts } from '../../chains/deploy';
import { identityRegistryAbi, issuerAbi, stockTokenAbi } from '../../contracts/abi';
import { basic, CLIENT_ID, createBrokerTestDb, ISSUANCE_PATH, ISSUER_ID, startTestSandbox, waitFor, WALLET, type BrokerTestDb, type TestSandbox } from './support';

let anvil: RunningAnvil;
let database: BrokerTestDb;
let sandbox: TestSandbox;
let deployed: DeployedContracts;
const deployer = privateKeyToAccount(anvilDevAccount(0).privateKey);
const brokerSigner = privateKeyToAccount(generatePrivateKey());

const chain = defineChain({ id: 1, name: 'anvil-1', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 });
  deployed = await deployContracts({
    rpcUrl: anvil.rpcUrl,
    chainId: 1,
    deployer,
    tokens: [{ symbol: 'AAPLon', name: 'Apple (tokenized)' }],
    attestationSigner: deployer.address,
    brokerSigner: brokerSigner.address,
  });
  const wallet = createWalletClient({ chain, account: deployer, transport: http(anvil.rpcUrl) });
  const client = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
  const hash = await wallet.writeContract({ address: deployed.registry, abi: identityRegistryAbi, functionName: 'register', args: [WALLET, `0x${'11'.repeat(32)}`] });
  await client.waitForTransactionReceipt({ hash });
  database = await createBrokerTestDb();
  sandbox = await startTestSandbox(database.db, { signer: brokerSigner, issuerContracts: { ethereum: deployed.issuer } });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await database?.drop();
  await anvil?.stop();
});

function publicClient() {
  return createPublicClient({ chain, transport: http(anvil.rpcUrl) });
}

interface Submission {
  tokenization_request_id: string;
  qty: string;
  underlying_symbol: string;
  token_symbol: string;
  network: 'ethereum';
  client_id: string;
  wallet_address: Address;
  created: number;
  nonce: string;
  broker_signature: Hex;
}

async function submitted(qty: string): Promise<Submission> {
  const response = await request(sandbox.broker.url)
    .post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`)
    .set('authorization', basic(sandbox.participant))
    .send({ underlying_symbol: 'AAPL', qty, issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET });
  expect(response.status).toBe(201);
  const id = response.body.tokenization_request_id as string;
  const call = await waitFor(async () => sandbox.issuer.callsTo(ISSUANCE_PATH).find((c) => JSON.parse(c.body).tokenization_request_id === id), 'the issuance call');
  return JSON.parse(call.body) as Submission;
}

/** A decimal string with at most nine decimals in 1e-9 units, by string arithmetic alone. */
function nineDecimals(qty: string): bigint {
  const [whole, fraction = ''] = qty.split('.');
  return BigInt(`${whole}${fraction.padEnd(9, '0')}`);
}

/** The contract's MintRequest struct from the submission alone, as the issuer rebuilds it (`clientAccountId` = `client_id`). */
function mintRequest(body: Submission) {
  return {
    tokenizationRequestId: body.tokenization_request_id,
    underlyingSymbol: body.underlying_symbol,
    tokenSymbol: body.token_symbol,
    qty: nineDecimals(body.qty),
    wallet: body.wallet_address,
    network: body.network,
    clientAccountId: body.client_id,
    created: BigInt(body.created),
    nonce: BigInt(body.nonce),
  };
}

it('signs the digest the contract computes, recovering to the broker signer', async () => {
  const body = await submitted('2.5');
  const req = mintRequest(body);
  expect(req.qty).toBe(2_500_000_000n);
  expect(req.clientAccountId).toBe(CLIENT_ID);
  const onChain = await publicClient().readContract({ address: deployed.issuer, abi: issuerAbi, functionName: 'hashMintRequest', args: [req] });
  const offChain = hashTypedData(mintRequestTypedData({ ...req, qty: body.qty, network: 'ethereum', created: body.created }, deployed.issuer));
  expect(onChain).toBe(offChain);
  expect(await recoverAddress({ hash: onChain, signature: body.broker_signature })).toBe(brokerSigner.address);
});

it('lets processMint mint with the submitted signature once, and refuses an altered request', async () => {
  const body = await submitted('1.000000001');
  const req = mintRequest(body);
  const client = publicClient();
  const wallet = createWalletClient({ chain, account: deployer, transport: http(anvil.rpcUrl) });
  const amount = req.qty * 10n ** 9n;
  const token = deployed.tokens.AAPLon!;
  const before = await client.readContract({ address: token, abi: stockTokenAbi, functionName: 'balanceOf', args: [WALLET] });

  // Altered after signing: the signature recovers to someone who is not a broker signer.
  await expect(
    client.simulateContract({ account: deployer, address: deployed.issuer, abi: issuerAbi, functionName: 'processMint', args: [{ ...req, qty: req.qty + 1n }, body.broker_signature, amount] }),
  ).rejects.toThrow(/SignerNotBroker/);

  const hash = await wallet.writeContract({ address: deployed.issuer, abi: issuerAbi, functionName: 'processMint', args: [req, body.broker_signature, amount] });
  expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
  const after = await client.readContract({ address: token, abi: stockTokenAbi, functionName: 'balanceOf', args: [WALLET] });
  expect(after - before).toBe(1_000_000_001_000_000_000n);

  await expect(
    client.simulateContract({ account: deployer, address: deployed.issuer, abi: issuerAbi, functionName: 'processMint', args: [req, body.broker_signature, amount] }),
  ).rejects.toThrow(/TokenizationRequestAlreadyProcessed/);
});
