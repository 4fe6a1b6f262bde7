import type { MongoClient } from 'mongodb';
import { leaseMongoClient } from './mongo-client';

describe('leaseMongoClient: one MongoClient per process', () => {
  const fakeClient = () => ({ close: jest.fn(() => Promise.resolve()) }) as unknown as MongoClient & { close: jest.Mock };

  it('shares one client between the read store, the bus and the blob store, and closes it with the last lease', async () => {
    const client = fakeClient();
    const connect = jest.fn(() => Promise.resolve(client));
    const leases = await Promise.all([1, 2, 3].map(() => leaseMongoClient('mongodb://db-a/svc', connect)));
    expect(connect).toHaveBeenCalledTimes(1);
    expect(leases.every((l) => l.client === client)).toBe(true);
    await leases[0].release();
    await leases[0].release(); // idempotent: does not count twice
    await leases[1].release();
    expect(client.close).not.toHaveBeenCalled();
    await leases[2].release();
    expect(client.close).toHaveBeenCalledTimes(1);
    // After the last release a new lease connects afresh.
    const again = await leaseMongoClient('mongodb://db-a/svc', connect);
    expect(connect).toHaveBeenCalledTimes(2);
    await again.release();
  });

  it('does not keep a client that failed to connect', async () => {
    const connect = jest.fn().mockRejectedValueOnce(new Error('connect ECONNREFUSED')).mockResolvedValueOnce(fakeClient());
    await expect(leaseMongoClient('mongodb://db-b/svc', connect)).rejects.toThrow('ECONNREFUSED');
    const lease = await leaseMongoClient('mongodb://db-b/svc', connect);
    expect(connect).toHaveBeenCalledTimes(2);
    await lease.release();
  });
});
