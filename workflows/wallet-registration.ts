/**
 * One change of a wallet's registration (`wallet-registration-<chain>-<address>-<version>`, started by the API
 * route or by worker recovery): writes the identity registry of the wallet's chain to what was asked and records
 * the outcome. The activity converges on the latest wanted state, so an older change running late does no harm.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { WalletActivities, WalletRegistrationResult } from '../activities/wallets';
import { chainFailureTypes, type WalletRegistrationInput } from '../temporal/messages';

const { applyWalletRegistration } = proxyActivities<WalletActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: [chainFailureTypes.notDeployed, chainFailureTypes.notConfigured, 'WALLET_NOT_FOUND'] },
});

export async function walletRegistrationWorkflow(input: WalletRegistrationInput): Promise<WalletRegistrationResult> {
  return await applyWalletRegistration(input);
}
