/** The subscribers of one process's live events, by topic (a price stream of several symbols is under each). */
import type { Logger } from '../config/logger';
import type { StreamEvent } from './events';

/** Whoever receives a stream's events (an SSE response, a gRPC call). */
export interface Subscriber {
  /** Sends one event; never throws. A subscriber that cannot keep up drops itself. */
  deliver(event: StreamEvent): void;
  /** Ends the stream, telling the client why (the server is shutting down). */
  end(reason: string): void;
}

export class Subscriptions {
  private readonly byTopic = new Map<string, Set<Subscriber>>();

  constructor(private readonly logger?: Logger) {}

  /** Adds `subscriber` under every topic; returns its removal (idempotent). */
  add(topics: string[], subscriber: Subscriber): () => void {
    for (const topic of topics) {
      let set = this.byTopic.get(topic);
      if (!set) this.byTopic.set(topic, (set = new Set()));
      set.add(subscriber);
    }
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      for (const topic of topics) {
        const set = this.byTopic.get(topic);
        set?.delete(subscriber);
        if (set?.size === 0) this.byTopic.delete(topic);
      }
    };
  }

  /** Hands `event` to the subscribers of its topic. */
  deliver(event: StreamEvent): void {
    const set = this.byTopic.get(event.topic);
    if (!set) return;
    for (const subscriber of set) {
      try {
        subscriber.deliver(event);
      } catch (error) {
        this.logger?.warn({ err: error }, 'live market data: a subscriber failed');
      }
    }
  }

  /** Ends every stream. */
  endAll(reason: string): void {
    const all = new Set([...this.byTopic.values()].flatMap((set) => [...set]));
    for (const subscriber of all) subscriber.end(reason);
  }

  /** Subscribers of every topic together (one stream of several symbols counts once per symbol). */
  count(): number {
    let count = 0;
    for (const set of this.byTopic.values()) count += set.size;
    return count;
  }
}
