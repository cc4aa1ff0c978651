/**
 * `npm start`'s webhook settings: without WEBHOOK_SECRET_KEYS a master key is generated once into the data directory,
 * readable by its owner only, and the same key is read back by every later start (secrets sealed under it still
 * open); a configured key is used as it is; local receivers are allowed.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { developmentWebhookSettings, WEBHOOK_KEY_FILE } from '../../../start/webhook-keys';
import { createSecretBox, newWebhookMasterKey } from '../../../webhooks/secret-box';

const unset = { WEBHOOK_SECRET_KEYS: undefined, WEBHOOK_ALLOWED_NETWORKS: [], WEBHOOK_ALLOW_HTTP: false };

test('generates the master key once, mode 0600, and reads the same one back', () => {
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'issuer-webhook-keys-')), 'data');
  const first = developmentWebhookSettings({ ...unset, DATA_DIR: dataDir });
  expect(first).toEqual({ WEBHOOK_SECRET_KEYS: expect.stringMatching(/^k[0-9a-f]{8}:/), WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.0/8', '::1/128'], WEBHOOK_ALLOW_HTTP: true });
  expect(statSync(path.join(dataDir, WEBHOOK_KEY_FILE)).mode & 0o777).toBe(0o600);
  const sealed = createSecretBox(first.WEBHOOK_SECRET_KEYS!).seal('wh_0123456789abcdef', 'whsec_c2VjcmV0');
  const again = developmentWebhookSettings({ ...unset, DATA_DIR: dataDir });
  expect(again.WEBHOOK_SECRET_KEYS).toBe(first.WEBHOOK_SECRET_KEYS);
  expect(createSecretBox(again.WEBHOOK_SECRET_KEYS!).open('wh_0123456789abcdef', sealed)).toBe('whsec_c2VjcmV0');
});

test('keeps configured keys and networks', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-webhook-keys-'));
  const keys = newWebhookMasterKey();
  expect(developmentWebhookSettings({ WEBHOOK_SECRET_KEYS: keys, WEBHOOK_ALLOWED_NETWORKS: ['10.0.0.0/8'], WEBHOOK_ALLOW_HTTP: false, DATA_DIR: dataDir })).toEqual({
    WEBHOOK_SECRET_KEYS: keys,
    WEBHOOK_ALLOWED_NETWORKS: ['10.0.0.0/8'],
    WEBHOOK_ALLOW_HTTP: true,
  });
  expect(() => statSync(path.join(dataDir, WEBHOOK_KEY_FILE))).toThrow();
});
