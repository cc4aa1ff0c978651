/**
 * The Temporal service's own schema (`temporal`, temporal-server/migrations), applied by the product's one
 * migration runner so that two services starting together do not race.
 */
import path from 'node:path';
import type { MigrationSet } from '../../db/migrate';

export const TEMPORAL_MIGRATIONS: MigrationSet = {
  name: 'temporal',
  directory: path.join(__dirname, '..', 'migrations'),
  schema: 'temporal',
  lockKey: 7_411_020,
};

