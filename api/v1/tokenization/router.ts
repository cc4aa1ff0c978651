/**
 * The partner (brokerage) in-kind flow: the operations the broker calls with its partner-scoped key, and the
 * operators' ones (admin) that onboard clients, enable wallets and follow every request.
 */
import type { Resource } from '../../contract/operation';
import { confirmIssuanceOperation } from './confirm-issuance';
import { connectAccountOperation } from './connect-account';
import { disableWalletOperation } from './disable-wallet';
import { enableWalletOperation } from './enable-wallet';
import { getClientOperation } from './get-client';
import { getRequestOperation } from './get-request';
import { issuanceOperation } from './issuance';
import { listRequestsOperation } from './list-requests';
import { putClientOperation } from './put-client';
import { rejectRequestOperation } from './reject-request';
import { resumeRequestOperation } from './resume-request';
import { tokenizedAssetsOperation } from './tokenized-assets';
import { unlinkClientOperation } from './unlink-client';

/** In matching order: `/inkind/issuance` before `/inkind/issuance/confirm`, `/clients/{clientId}` before its sub-paths. */
export const tokenizationResource: Resource = {
  tag: 'Partner flow',
  description:
    "The brokerage partner's in-kind flow (Ethereum and BNB Chain): the broker links its accounts, lists what it may tokenize, asks for mints and confirms the journals with its partner-scoped key; operators (admin) onboard clients, enable their wallets and follow, resume and (for a mint the contract refused) reject every mint and redemption.",
  operations: [
    connectAccountOperation,
    tokenizedAssetsOperation,
    issuanceOperation,
    confirmIssuanceOperation,
    putClientOperation,
    getClientOperation,
    unlinkClientOperation,
    enableWalletOperation,
    disableWalletOperation,
    listRequestsOperation,
    getRequestOperation,
    resumeRequestOperation,
    rejectRequestOperation,
  ],
};
