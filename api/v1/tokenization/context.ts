/** What the partner routes share: the workflow service, the broker signers, and partner refusals turned into API errors. */
import type { BrokerSignerDirectory } from '../../../partner/broker-signature';
import { PartnerRefused } from '../../../partner/errors';
import type { PartnerWorkflows } from '../../../partner/workflows';
import { ApiError } from '../../../domain/errors';
import type { ApiServices } from '../../services';

export function requireWorkflows(services: ApiServices): PartnerWorkflows {
  if (!services.temporal) throw new ApiError('TEMPORAL_UNAVAILABLE', 'This API process has no workflow service');
  return { client: services.temporal, taskQueue: services.taskQueue };
}

/** Who may sign mint requests; a process that reads no chain cannot check a broker's signature, so it takes no issuance. */
export function requireBrokerSigners(services: ApiServices): BrokerSignerDirectory {
  if (!services.brokerSigners) throw new ApiError('CHAIN_UNAVAILABLE', 'This API process reads no chain, so it cannot check broker signatures');
  return services.brokerSigners;
}

/** Runs a partner service call, answering its refusal with the code it names. */
export async function refusalsAsErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PartnerRefused) throw new ApiError(error.code, error.message, { cause: error });
    throw error;
  }
}
