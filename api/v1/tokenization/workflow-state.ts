/** Where a partner request's workflow stands, asked with `partnerRequestState` (null when it cannot answer now). */
import type { Client } from '@temporalio/client';
import type { PartnerRequestRecord } from '../../../db/queries/partner-requests';
import { partnerRequestStateQuery, type PartnerRequestWorkflowState } from '../../../temporal/messages';
import { partnerMintWorkflowId } from '../../../temporal/workflow-ids';

/** The workflow of a request: a mint's `partner-mint-<id>`, a redemption's own id (`redemption-…`). */
export function partnerWorkflowId(request: Pick<PartnerRequestRecord, 'kind' | 'issuerRequestId'>): string {
  return request.kind === 'mint' ? partnerMintWorkflowId(request.issuerRequestId) : request.issuerRequestId;
}

export async function queryPartnerWorkflow(client: Client | undefined, request: PartnerRequestRecord): Promise<PartnerRequestWorkflowState | null> {
  if (!client) return null;
  try {
    return await client.workflow.getHandle(partnerWorkflowId(request)).query(partnerRequestStateQuery);
  } catch {
    return null;
  }
}
