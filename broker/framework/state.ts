/** What the sandbox's middleware leaves on `ctx.state` for handlers. */
import type { CredentialRole } from '../queries/credentials';

export interface BrokerState {
  requestId: string;
  /** The authenticated basic-auth credential. */
  credential?: { key: string; role: CredentialRole };
}
