/** The reserves resource: the proof of reserves (any key) and what operators watch of the hedges (admin). */
import type { Resource } from '../../contract/operation';
import { hedgesOperation } from './hedges';
import { reserveHistoryOperation } from './history';
import { reservesOperation } from './reserves';

export const reservesResource: Resource = {
  tag: 'Reserves',
  description: 'Every token backed: the tokens on chain against the shares held at the broker, continuously; the hedges of attestation trades.',
  operations: [reserveHistoryOperation, hedgesOperation, reservesOperation],
};
