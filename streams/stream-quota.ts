/** How many streams (SSE and gRPC together) each API key may hold open in this process. */
export class StreamQuota {
  private readonly open = new Map<string, number>();

  constructor(readonly perKey: number) {}

  /** Takes one stream of `keyId`'s allowance; returns its release (idempotent), or undefined when none is left. */
  acquire(keyId: string): (() => void) | undefined {
    const count = this.open.get(keyId) ?? 0;
    if (count >= this.perKey) return undefined;
    this.open.set(keyId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(keyId) ?? 1) - 1;
      if (left <= 0) this.open.delete(keyId);
      else this.open.set(keyId, left);
    };
  }

  /** Streams `keyId` holds open. */
  count(keyId: string): number {
    return this.open.get(keyId) ?? 0;
  }
}
