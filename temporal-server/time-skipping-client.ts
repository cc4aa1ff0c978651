/**
 * Time skipping for tests, through the TestService of the in-memory Temporal service (the same API as
 * Temporal's Java test server). Time skipping starts locked; while unlocked, the service jumps virtual time
 * to the next timer whenever nothing is in flight.
 */
import * as grpc from '@grpc/grpc-js';
import { msToDuration, serviceDefinitions, timestampToMs, type temporal } from './proto';

type Unary<Request, Response> = (request: Request, callback: (error: grpc.ServiceError | null, response?: Response) => void) => void;

interface TestServiceClient extends grpc.Client {
  LockTimeSkipping: Unary<object, object>;
  UnlockTimeSkipping: Unary<object, object>;
  UnlockTimeSkippingWithSleep: Unary<temporal.api.testservice.v1.ISleepRequest, object>;
  Sleep: Unary<temporal.api.testservice.v1.ISleepRequest, object>;
  GetCurrentTime: Unary<object, temporal.api.testservice.v1.IGetCurrentTimeResponse>;
}

function call<Request, Response>(method: Unary<Request, Response>, client: grpc.Client, request: Request): Promise<Response> {
  return new Promise((resolve, reject) => {
    method.call(client, request, (error, response) => (error ? reject(error) : resolve(response as Response)));
  });
}

export class TimeSkipping {
  private constructor(private readonly client: TestServiceClient) {}

  /** Connects to the TestService at `address` (host:port). */
  static connect(address: string): TimeSkipping {
    const Constructor = grpc.makeGenericClientConstructor(serviceDefinitions().testService, 'TestService');
    return new TimeSkipping(new Constructor(address, grpc.credentials.createInsecure()) as unknown as TestServiceClient);
  }

  lock(): Promise<void> {
    return call(this.client.LockTimeSkipping, this.client, {}).then(() => undefined);
  }

  unlock(): Promise<void> {
    return call(this.client.UnlockTimeSkipping, this.client, {}).then(() => undefined);
  }

  /** Lets virtual time advance by `ms`, skipping whenever nothing is in flight, then locks again. */
  skip(ms: number): Promise<void> {
    return call(this.client.UnlockTimeSkippingWithSleep, this.client, { duration: msToDuration(ms) }).then(() => undefined);
  }

  /** Waits until virtual time has advanced by `ms` without changing the lock. */
  sleep(ms: number): Promise<void> {
    return call(this.client.Sleep, this.client, { duration: msToDuration(ms) }).then(() => undefined);
  }

  async currentTime(): Promise<Date> {
    const response = await call(this.client.GetCurrentTime, this.client, {});
    return new Date(timestampToMs(response.time));
  }

  /** Runs `body` with time skipping unlocked (e.g. while awaiting a workflow result). */
  async whileUnlocked<T>(body: () => Promise<T>): Promise<T> {
    await this.unlock();
    try {
      return await body();
    } finally {
      await this.lock();
    }
  }

  close(): void {
    this.client.close();
  }
}
