/** Workflow ids are business keys: starting the same business process twice finds the running one. */

/** The single candle-retention workflow of a deployment. */
export const MARKET_DATA_RETENTION_WORKFLOW_ID = 'market-data-retention';

/** The lifecycle workflow of one attestation. */
export function attestationWorkflowId(attestationId: string): string {
  return `attestation-${attestationId}`;
}
