/**
 * The worker's activities, built from their dependencies (production injects real services, tests inject
 * local ones). Each activity group adds its factory here.
 */
import type { Database } from '../db/pool';
import { createAttestationActivities } from './attestations';
import { createMarketDataActivities } from './market-data-retention';

/** Everything activities need from the outside world. */
export interface ActivityDependencies {
  db: Database;
}

/** Builds the activities object registered with the worker. */
export function createActivities(deps: ActivityDependencies) {
  return {
    ...createMarketDataActivities({ db: deps.db }),
    ...createAttestationActivities({ db: deps.db }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
