/** The app, the product's workflows on a real worker, and one fresh database they share: for end-to-end tests. */
import { createActivities } from '../../activities';
import { createTestApi, type TestApi } from './api';
import { cloneTemplateDatabase, type TestDb } from './database';
import { startProductTemporal, type ProductTemporal } from './temporal';

export interface TestStack {
  database: TestDb;
  temporal: ProductTemporal;
  api: TestApi;
  close(): Promise<void>;
}

export async function startTestStack(): Promise<TestStack> {
  const database = await cloneTemplateDatabase();
  const temporal = await startProductTemporal(createActivities({ db: database.db }), { attestationsIn: database.db });
  const api = await createTestApi({ database, temporal: temporal.client, taskQueue: temporal.taskQueue });
  return {
    database,
    temporal,
    api,
    async close() {
      await temporal.teardown();
      await database.drop();
    },
  };
}
