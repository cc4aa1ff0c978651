/** Builds the Temporal client used by the API and scripts. */
import { Client, Connection } from '@temporalio/client';

export interface TemporalClientOptions {
  address: string;
  namespace: string;
}

/** Connects to the Temporal frontend at `address` and returns a Client for `namespace`. */
export async function createTemporalClient(options: TemporalClientOptions): Promise<Client> {
  const connection = await Connection.connect({ address: options.address });
  return new Client({ connection, namespace: options.namespace });
}

/** Closes the connection underneath a client made by createTemporalClient. */
export async function closeTemporalClient(client: Client): Promise<void> {
  await client.connection.close();
}
