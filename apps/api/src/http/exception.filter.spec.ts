import type { ArgumentsHost } from '@nestjs/common';
import { convertToCommandError } from '@eventstore/db-client';
import type { Settings } from '@svc/infrastructure/config/env';
import { MongoServerSelectionError, type TopologyDescription } from 'mongodb';
import { ApiExceptionFilter } from './exception.filter';

/** A Fastify reply that records what the filter sends. */
function fakeReply() {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    request: { id: 'req-7' },
    hasHeader: (name: string) => name in sent.headers,
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    status(code: number) {
      sent.status = code;
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply }) } as unknown as ArgumentsHost;
  return { sent, host };
}

describe('ApiExceptionFilter: a transient store fault', () => {
  const filter = new ApiExceptionFilter({ typeHost: 'type.googleapis.com' } as Settings);
  const cases: Array<[string, Error]> = [
    ['MongoDB server selection', new MongoServerSelectionError('Server selection timed out after 30000 ms', {} as TopologyDescription)],
    ['EventStoreDB unavailable', convertToCommandError(Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: '', metadata: { getMap: () => ({}) } }))],
  ];
  it.each(cases)('%s answers 503 UNAVAILABLE with Retry-After, not 500', (_, error) => {
    const { sent, host } = fakeReply();
    filter.catch(error, host);
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('1');
    expect(sent.body).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', details: [{ reason: 'STORE_UNAVAILABLE' }, { requestId: 'req-7' }] } });
  });

  it('anything else unknown stays INTERNAL', () => {
    const { sent, host } = fakeReply();
    filter.catch(new TypeError('x is undefined'), host);
    expect(sent.status).toBe(500);
    expect(sent.headers['Retry-After']).toBeUndefined();
  });
});
