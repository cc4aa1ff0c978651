/**
 * Webhook secrets at rest and on the wire: a sealed secret is not the secret and opens only for its own endpoint
 * under a key of the ring (the second key still opens what it sealed before a rotation of the master key); the
 * signature header, with one secret or two during a rotation, verifies with the Standard Webhooks library.
 */
import { Webhook } from 'standardwebhooks';
import { createSecretBox, newWebhookMasterKey } from '../../webhooks/secret-box';
import { newWebhookSecret, signWebhook } from '../../webhooks/signing';

describe('SecretBox', () => {
  const oldKey = newWebhookMasterKey();
  const newKey = newWebhookMasterKey();

  it('seals so that the stored bytes do not hold the secret, and opens it again', () => {
    const box = createSecretBox(oldKey);
    const secret = newWebhookSecret();
    const sealed = box.seal('wh_0123456789abcdef', secret);
    expect(sealed.keyId).toBe(oldKey.split(':')[0]);
    expect(sealed.sealed.includes(Buffer.from(secret))).toBe(false);
    expect(sealed.sealed.includes(Buffer.from(secret.slice('whsec_'.length), 'base64'))).toBe(false);
    expect(box.open('wh_0123456789abcdef', sealed)).toBe(secret);
    expect(box.seal('wh_0123456789abcdef', secret).sealed.equals(sealed.sealed)).toBe(false);
  });

  it('does not open for another endpoint, under another key, or altered', () => {
    const box = createSecretBox(oldKey);
    const sealed = box.seal('wh_0123456789abcdef', newWebhookSecret());
    expect(() => box.open('wh_fedcba9876543210', sealed)).toThrow(/does not open/);
    const otherKeySameId = `${oldKey.split(':')[0]}:${newKey.split(':')[1]}`;
    expect(() => createSecretBox(otherKeySameId).open('wh_0123456789abcdef', sealed)).toThrow(/does not open/);
    expect(() => createSecretBox(newKey).open('wh_0123456789abcdef', sealed)).toThrow(/lacks/);
    const altered = Buffer.from(sealed.sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => box.open('wh_0123456789abcdef', { ...sealed, sealed: altered })).toThrow(/does not open/);
  });

  it('opens with the second key of a rotated keyring what the first sealed before, and seals under the new one', () => {
    const secret = newWebhookSecret();
    const before = createSecretBox(oldKey).seal('wh_0123456789abcdef', secret);
    const rotated = createSecretBox(`${newKey},${oldKey}`);
    expect(rotated.open('wh_0123456789abcdef', before)).toBe(secret);
    const after = rotated.seal('wh_0123456789abcdef', secret);
    expect(after.keyId).toBe(newKey.split(':')[0]);
    expect(createSecretBox(newKey).open('wh_0123456789abcdef', after)).toBe(secret);
  });

  it.each(['', 'k1', 'k1:c2hvcnQ=', `bad id:${Buffer.alloc(32).toString('base64')}`, `${newWebhookMasterKey().split(':')[0]}:x,k:y`])(
    'refuses the keyring %p without echoing a key',
    (keys) => {
      expect(() => createSecretBox(keys)).toThrow(/^WEBHOOK_SECRET_KEYS: /);
    },
  );
});

describe('signWebhook', () => {
  const body = JSON.stringify({ id: 'evt_42', type: 'attestation.executed', data: { amount: '1.5' } });
  const at = new Date();
  const headersOf = (signature: string) => ({
    'webhook-id': 'evt_42',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  });

  it('signs in the form the Standard Webhooks library verifies', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const signature = signWebhook([secret], 'evt_42', at, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(new Webhook(secret).verify(body, headersOf(signature))).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headersOf(signature))).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headersOf(signature))).toThrow();
  });

  it('during a rotation carries both signatures, so the old and the new secret each verify', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const signature = signWebhook([current, previous], 'evt_42', at, body);
    expect(signature.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headersOf(signature))).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headersOf(signature))).toEqual(JSON.parse(body));
  });
});
