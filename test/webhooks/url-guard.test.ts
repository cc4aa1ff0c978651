/**
 * The webhook URL guard: every forbidden range refused, IPv4-mapped IPv6 judged as IPv4, the operator's allow-list,
 * the scheme and credential rules, and a name that resolves inward only at delivery (DNS rebinding) refused by the
 * socket's own lookup before any connection opens.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhookUrl, guardedLookup, type Resolver, type UrlPolicy } from '../../webhooks/url-guard';

const STRICT: UrlPolicy = { allowedNetworks: [], allowHttp: false };
const noDns: Resolver = async (hostname) => {
  throw new Error(`no DNS in this test (${hostname})`);
};
const resolvingTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('checkWebhookUrl', () => {
  it.each([
    ['0.0.0.0/8', '0.1.2.3'],
    ['10/8', '10.0.0.5'],
    ['100.64/10 (shared)', '100.100.1.1'],
    ['127/8', '127.0.0.1'],
    ['169.254/16 (cloud metadata)', '169.254.169.254'],
    ['172.16/12', '172.31.255.1'],
    ['192.0.0/24', '192.0.0.8'],
    ['192.0.2/24', '192.0.2.1'],
    ['192.168/16', '192.168.1.1'],
    ['198.18/15', '198.19.0.1'],
    ['198.51.100/24', '198.51.100.7'],
    ['203.0.113/24', '203.0.113.9'],
    ['224/4 (multicast)', '239.1.1.1'],
    ['240/4 (reserved)', '255.255.255.255'],
    ['::', '[::]'],
    ['::1', '[::1]'],
    ['fc00::/7', '[fd12:3456::1]'],
    ['fe80::/10', '[fe80::1]'],
    ['ff00::/8', '[ff02::1]'],
    ['2001:db8::/32', '[2001:db8::1]'],
    ['64:ff9b::/96 (NAT64 of 10.0.0.1)', '[64:ff9b::a00:1]'],
    ['100::/64', '[100::1]'],
    ['IPv4-mapped 127.0.0.1', '[::ffff:127.0.0.1]'],
    ['IPv4-mapped 169.254.169.254, hex form', '[::ffff:a9fe:a9fe]'],
    ['127.0.0.1 written as an integer', '2130706433'],
  ])('refuses %s (%s)', async (_range, host) => {
    const verdict = await checkWebhookUrl(`https://${host}/hook`, STRICT, noDns);
    expect(verdict).toMatchObject({ ok: false, code: 'WEBHOOK_URL_FORBIDDEN' });
  });

  it('refuses a name when any of its addresses is internal, naming that address', async () => {
    const verdict = await checkWebhookUrl('https://hooks.example.com/in', STRICT, resolvingTo('8.8.8.8', '192.168.4.2'));
    expect(verdict).toEqual({
      ok: false,
      code: 'WEBHOOK_URL_FORBIDDEN',
      reason: expect.stringMatching(/192\.168\.4\.2 .*WEBHOOK_ALLOWED_NETWORKS/),
    });
  });

  it.each(['localhost', 'LOCALHOST.', 'api.localhost'])('refuses the name %s without resolving it', async (host) => {
    expect(await checkWebhookUrl(`https://${host}/x`, STRICT, noDns)).toMatchObject({ ok: false, code: 'WEBHOOK_URL_FORBIDDEN' });
  });

  it('accepts a public address, and an allow-listed network (IPv4-mapped included)', async () => {
    expect(await checkWebhookUrl('https://hooks.example.com/in', STRICT, resolvingTo('93.184.215.14', '2606:2800::1'))).toMatchObject({
      ok: true,
      addresses: ['93.184.215.14', '2606:2800::1'],
    });
    const local: UrlPolicy = { allowedNetworks: ['127.0.0.0/8', '::1/128', '10.1.2.3'], allowHttp: true };
    for (const host of ['127.0.0.1:8080', '[::1]', '[::ffff:127.0.0.9]', '10.1.2.3']) {
      expect(await checkWebhookUrl(`http://${host}/in`, local, noDns)).toMatchObject({ ok: true });
    }
    expect(await checkWebhookUrl('http://10.1.2.4/in', local, noDns)).toMatchObject({ ok: false, code: 'WEBHOOK_URL_FORBIDDEN' });
  });

  it.each([
    ['http without WEBHOOK_ALLOW_HTTP', 'http://93.184.215.14/', STRICT],
    ['another scheme', 'ftp://93.184.215.14/', { allowedNetworks: [], allowHttp: true }],
    ['credentials', 'https://user:pass@93.184.215.14/', STRICT],
    ['a user name alone', 'https://user@93.184.215.14/', STRICT],
    ['a relative URL', '/hook', STRICT],
    ['a name that does not resolve', 'https://nowhere.invalid/', STRICT],
    ['a URL over 2 048 characters', `https://93.184.215.14/${'a'.repeat(2_048)}`, STRICT],
  ])('answers INVALID_WEBHOOK_URL for %s', async (_case, raw, policy) => {
    const resolve: Resolver = async () => [];
    expect(await checkWebhookUrl(raw, policy, resolve)).toMatchObject({ ok: false, code: 'INVALID_WEBHOOK_URL' });
  });
});

describe('guardedLookup', () => {
  let server: http.Server;
  let port: number;
  const connections: string[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      connections.push(request.url ?? '');
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string, lookup: ReturnType<typeof guardedLookup>) =>
    new Promise<number>((resolve, reject) => {
      const request = http.get({ host: 'hooks.example.com', port, path, lookup, agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
    });

  it('refuses, before connecting, a name that resolved publicly at registration and inward at delivery', async () => {
    let answers = 0;
    const rebinding: Resolver = async () => [{ address: answers++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const policy: UrlPolicy = { allowedNetworks: [], allowHttp: true };
    expect(await checkWebhookUrl(`http://hooks.example.com:${port}/rebound`, policy, rebinding)).toMatchObject({ ok: true });
    await expect(get('/rebound', guardedLookup(policy, rebinding))).rejects.toMatchObject({
      name: 'WebhookAddressRefused',
      message: expect.stringContaining('127.0.0.1'),
    });
    expect(connections).not.toContain('/rebound');
  });

  it('connects to an allow-listed address', async () => {
    const policy: UrlPolicy = { allowedNetworks: ['127.0.0.0/8'], allowHttp: true };
    expect(await get('/allowed', guardedLookup(policy, resolvingTo('127.0.0.1')))).toBe(200);
    expect(connections).toContain('/allowed');
  });

  it('refuses an IP literal and localhost at delivery too', async () => {
    const lookup = guardedLookup(STRICT, noDns);
    const resolveWith = (host: string) =>
      new Promise((resolve, reject) => lookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
    await expect(resolveWith('169.254.169.254')).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
    await expect(resolveWith('localhost')).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
    await expect(resolveWith('93.184.215.14')).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
  });
});
