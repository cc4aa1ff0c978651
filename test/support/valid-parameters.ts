/** A valid value of each path and query parameter of the API, by name: what a walk keeps in the others while it probes one. */
export const ADDRESS = `0x${'44'.repeat(20)}`;

export const VALID_PARAMETERS: Record<string, string> = {
  underlying: 'AAPL',
  symbol: 'AAPLon',
  attestationId: '1',
  session: 'regular',
  eventId: 'evt_missing',
  clientId: 'acct-nobody',
  accountId: 'acct-nobody',
  chainId: 'ethereum-1',
  address: ADDRESS,
  tokenAddress: ADDRESS,
  userAddress: ADDRESS,
  issuerRequestId: 'mint-nobody',
  workflowId: 'market-data-retention',
  sort: 'asc',
  interval: '1hour',
  range: '1month',
  side: 'buy',
  webhookId: 'wh_0000000000000000',
  deliveryId: '1',
};
