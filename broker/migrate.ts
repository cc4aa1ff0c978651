/** The sandbox's own schema (`broker`, broker/migrations), applied by the product's one migration runner. */
import path from 'node:path';
import type { MigrationSet } from '../db/migrate';

export const BROKER_MIGRATIONS: MigrationSet = {
  name: 'broker',
  directory: path.join(__dirname, 'migrations'),
  schema: 'broker',
  lockKey: 7_411_010,
};

