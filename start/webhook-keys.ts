/**
 * `npm start`'s webhook settings: without WEBHOOK_SECRET_KEYS, a master key generated once and kept in
 * `<dataDir>/webhook-keys.json` (mode 0600), so the secrets sealed under it open across restarts; and local receivers
 * allowed (the loopback networks, plain http), for trying webhooks against a receiver on this machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config';
import { newWebhookMasterKey } from '../webhooks/secret-box';

/** File name, under the data directory, of the generated webhook master key. */
export const WEBHOOK_KEY_FILE = 'webhook-keys.json';

const keyFileSchema = z.object({ keys: z.string().min(1) });

/** Reads `<dataDir>/webhook-keys.json`, creating it (exclusively, mode 0600) when missing. */
function readOrCreateMasterKey(dataDir: string): string {
  const file = path.join(dataDir, WEBHOOK_KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const content = {
    note: 'Development webhook master key (WEBHOOK_SECRET_KEYS), generated because the variable was unset. Never use in production.',
    keys: newWebhookMasterKey(),
    createdAt: new Date().toISOString(),
  };
  try {
    fs.writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const parsed = keyFileSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: not a webhook key file (delete it to generate another; sealed secrets are then lost)`);
  return parsed.data.keys;
}

type WebhookSettings = Pick<Config, 'WEBHOOK_SECRET_KEYS' | 'WEBHOOK_ALLOWED_NETWORKS' | 'WEBHOOK_ALLOW_HTTP'>;

/** The webhook settings `npm start` gives its API and worker: the configured ones, completed for local use. */
export function developmentWebhookSettings(config: WebhookSettings & Pick<Config, 'DATA_DIR'>): WebhookSettings {
  return {
    WEBHOOK_SECRET_KEYS: config.WEBHOOK_SECRET_KEYS || readOrCreateMasterKey(config.DATA_DIR),
    WEBHOOK_ALLOWED_NETWORKS: config.WEBHOOK_ALLOWED_NETWORKS.length > 0 ? config.WEBHOOK_ALLOWED_NETWORKS : ['127.0.0.0/8', '::1/128'],
    WEBHOOK_ALLOW_HTTP: true,
  };
}
