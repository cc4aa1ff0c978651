import {
  concat,
  encodeAbiParameters,
  getAddress,
  hashTypedData,
  hexToBytes,
  keccak256,
  recoverAddress,
  recoverTypedDataAddress,
  stringToHex,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  EIP712_DOMAIN_NAME,
  InvalidQuoteError,
  QUOTE_TYPE,
  QUOTE_TYPES,
  base64ToBytes,
  bytesToBase64,
  evmDomain,
  hashEvmQuote,
  hexToBase64,
  recoverEvmQuoteSigner,
  secp256k1Implementation,
  signDigest,
  signEvmQuote,
  signEvmQuoteWithKey,
  type Quote,
} from '../../../signing';
import { EVM_PRIVATE_KEY, TAMPERED_FIELDS, TOKEN_MANAGER_BSC, TOKEN_MANAGER_ETH, evmQuote } from './fixtures';

const account = privateKeyToAccount(EVM_PRIVATE_KEY);
const ethDomain = evmDomain('ethereum-1', TOKEN_MANAGER_ETH);

describe('EVM quote signatures (EIP-712)', () => {
  test('are 65 bytes r‖s‖v and recover, with viem directly, to the signer', async () => {
    const quote = evmQuote();
    const signature = await signEvmQuote(account, quote, ethDomain);
    expect(signature).toHaveLength(65);
    expect([27, 28]).toContain(signature[64]);
    const recovered = await recoverTypedDataAddress({
      domain: { name: EIP712_DOMAIN_NAME, version: '1', chainId: 1, verifyingContract: getAddress(TOKEN_MANAGER_ETH) },
      types: QUOTE_TYPES,
      primaryType: 'Quote',
      message: { ...quote, asset: quote.asset as Address },
      signature: `0x${Buffer.from(signature).toString('hex')}`,
    });
    expect(recovered).toBe(account.address);
    await expect(recoverEvmQuoteSigner(quote, ethDomain, signature)).resolves.toBe(account.address);
  });

  test('digest equals the one a Solidity contract computes from the design type string', async () => {
    const quote = evmQuote({ side: 1 });
    const typeHash = keccak256(stringToHex(QUOTE_TYPE));
    const structHash = keccak256(
      encodeAbiParameters(
        ['bytes32', 'uint256', 'uint256', 'bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint8', 'bytes32'].map((type) => ({ type })),
        [typeHash, quote.chainId, quote.attestationId, quote.userId, quote.asset, quote.price, quote.quantity, quote.expiration, quote.side, quote.additionalData],
      ),
    );
    const domainTypeHash = keccak256(stringToHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'));
    const domainSeparator = keccak256(
      encodeAbiParameters(
        ['bytes32', 'bytes32', 'bytes32', 'uint256', 'address'].map((type) => ({ type })),
        [domainTypeHash, keccak256(stringToHex('TokenizedStockIssuerTokenManager')), keccak256(stringToHex('1')), 1n, TOKEN_MANAGER_ETH],
      ),
    );
    const digest = keccak256(concat(['0x1901', domainSeparator, structHash]));
    expect(QUOTE_TYPE).toBe(
      'Quote(uint256 chainId,uint256 attestationId,bytes32 userId,address asset,uint256 price,uint256 quantity,uint256 expiration,uint8 side,bytes32 additionalData)',
    );
    expect(hashEvmQuote(quote, ethDomain)).toBe(digest);
    const signature = await signEvmQuote(account, quote, ethDomain);
    await expect(recoverAddress({ hash: digest, signature: `0x${Buffer.from(signature).toString('hex')}` })).resolves.toBe(account.address);
  });

  test('signed with the key directly, are the bytes the viem account signs, natively and in JavaScript alike', async () => {
    // The prebuilt binding loads on the platforms the package ships it for (linux-x64 among them).
    expect(secp256k1Implementation).toBe('native');
    const key = hexToBytes(EVM_PRIVATE_KEY);
    const bscDomain = evmDomain('bsc-56', TOKEN_MANAGER_BSC);
    for (let index = 0; index < 40; index += 1) {
      const domain = index % 2 === 0 ? ethDomain : bscDomain;
      const quote = evmQuote({
        chainId: domain.chainId,
        attestationId: BigInt(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex')}`),
        price: BigInt(index + 1) * 10n ** 17n + BigInt(index * 7919),
        quantity: 1n + BigInt(index) * 123_456_789n,
        side: (index % 2) as 0 | 1,
      });
      const typed = { domain, types: QUOTE_TYPES, primaryType: 'Quote', message: { ...quote, asset: getAddress(quote.asset) } } as const;
      expect(hashEvmQuote(quote, domain)).toBe(hashTypedData(typed));
      const expected = await signEvmQuote(account, quote, domain);
      expect(signEvmQuoteWithKey(key, quote, domain)).toEqual(expected);
      const digest = hexToBytes(hashEvmQuote(quote, domain));
      expect(signDigest(digest, key, 'javascript')).toEqual(expected);
      expect(signDigest(digest, key, 'native')).toEqual(expected);
    }
  });

  test('recover a different address under another chain id', async () => {
    const quote = evmQuote();
    const signature = await signEvmQuote(account, quote, ethDomain);
    const bscDomain = evmDomain('bsc-56', TOKEN_MANAGER_ETH);
    expect(await recoverEvmQuoteSigner({ ...quote, chainId: 56n }, bscDomain, signature)).not.toBe(account.address);
    // Only the domain's chain id differs: still another signer.
    expect(await recoverEvmQuoteSigner(quote, bscDomain, signature)).not.toBe(account.address);
  });

  test('recover a different address under another verifying contract, name or version', async () => {
    const quote = evmQuote();
    const signature = await signEvmQuote(account, quote, ethDomain);
    const others = [
      evmDomain('ethereum-1', TOKEN_MANAGER_BSC),
      { ...ethDomain, name: 'OndoGMTokenManager' },
      { ...ethDomain, version: '2' },
    ];
    for (const domain of others) {
      expect(await recoverEvmQuoteSigner(quote, domain, signature)).not.toBe(account.address);
    }
  });

  test.each(TAMPERED_FIELDS)('recover a different address when %s is tampered with', async (_field, change) => {
    const quote = evmQuote();
    const signature = await signEvmQuote(account, quote, ethDomain);
    expect(await recoverEvmQuoteSigner({ ...quote, ...change(quote) }, ethDomain, signature)).not.toBe(account.address);
  });

  test('recover a different address when the asset is tampered with', async () => {
    const quote = evmQuote();
    const signature = await signEvmQuote(account, quote, ethDomain);
    const other = { ...quote, asset: '0x5FbDB2315678afecb367f032d93F642f64180aa4'.toLowerCase() };
    expect(await recoverEvmQuoteSigner(other, ethDomain, signature)).not.toBe(account.address);
  });

  test('treat a lower-case asset like its checksummed form', async () => {
    const quote = evmQuote();
    const signature = await signEvmQuote(account, { ...quote, asset: quote.asset.toLowerCase() }, ethDomain);
    await expect(recoverEvmQuoteSigner(quote, ethDomain, signature)).resolves.toBe(account.address);
  });

  test('base64 round-trips the 65 bytes', async () => {
    const signature = await signEvmQuote(account, evmQuote(), ethDomain);
    const text = bytesToBase64(signature);
    expect(text).toMatch(/^[A-Za-z0-9+/]{87}=$/);
    expect(base64ToBytes(text)).toEqual(signature);
    expect(new Uint8Array(Buffer.from(text, 'base64'))).toEqual(signature);
    expect(() => base64ToBytes(text.slice(0, -1))).toThrow('not canonical base64');
    expect(Buffer.from(hexToBase64(evmQuote().additionalData), 'base64')).toHaveLength(32);
  });

  const invalid: Array<[string, Partial<Quote>, keyof Quote]> = [
    ['chain id differing from the domain', { chainId: 56n }, 'chainId'],
    ['non-EVM asset', { asset: 'So11111111111111111111111111111111111111112' }, 'asset'],
    ['bad checksum asset', { asset: '0x5fbDB2315678afecb367f032d93F642f64180aa3' }, 'asset'],
    ['short userId', { userId: '0x1234' }, 'userId'],
    ['non-hex additionalData', { additionalData: `0x${'zz'.repeat(32)}` as Hex }, 'additionalData'],
    ['zero quantity', { quantity: 0n }, 'quantity'],
    ['negative price', { price: -1n }, 'price'],
    ['price of 2^128', { price: 1n << 128n }, 'price'],
    ['attestationId of 2^128', { attestationId: 1n << 128n }, 'attestationId'],
    ['negative expiration', { expiration: -1n }, 'expiration'],
    ['side 2', { side: 2 as 0 }, 'side'],
  ];
  test.each(invalid)('refuse to sign a quote with a %s', async (_case, change, field) => {
    const attempt = signEvmQuote(account, evmQuote(change), ethDomain);
    await expect(attempt).rejects.toBeInstanceOf(InvalidQuoteError);
    await expect(attempt).rejects.toMatchObject({ field });
  });
});

describe('evmDomain', () => {
  test('names the project, version 1, the bare chain id and the checksummed token manager', () => {
    expect(evmDomain('bsc-56', '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd')).toEqual({
      name: 'TokenizedStockIssuerTokenManager',
      version: '1',
      chainId: 56n,
      verifyingContract: '0xABcdEFABcdEFabcdEfAbCdefabcdeFABcDEFabCD',
    });
  });

  test('refuses an unknown chain and a non-address contract', () => {
    expect(() => evmDomain('solana-900' as 'bsc-56', TOKEN_MANAGER_ETH)).toThrow('unknown EVM chain');
    expect(() => evmDomain('ethereum-1', '0x1234')).toThrow('not an EVM address');
  });
});
