import { randomBytes } from 'node:crypto';
import { EventIdCodec, ForeignEventIdError } from './event-ids';

describe('EventIdCodec', () => {
  const codec = new EventIdCodec(randomBytes(32));

  it('round-trips a position for its organization, the same id each time', () => {
    const position = { commit: 123_456_789n, prepare: 123_456_780n };
    const id = codec.encode('acme', position);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(codec.encode('acme', position)).toBe(id);
    expect(codec.decode('acme', id)).toEqual(position);
    expect(codec.decode('acme', codec.encode('acme', { commit: -1n, prepare: -1n }))).toEqual({ commit: -1n, prepare: -1n });
  });

  it('shows nothing of the position: neighbours share no prefix, and another organization gets another id', () => {
    const a = codec.encode('acme', { commit: 41n, prepare: 41n });
    const b = codec.encode('acme', { commit: 42n, prepare: 42n });
    expect(a.slice(0, 8)).not.toBe(b.slice(0, 8));
    expect(codec.encode('globex', { commit: 41n, prepare: 41n })).not.toBe(a);
  });

  it('refuses an id of another organization, another key, or altered', () => {
    const id = codec.encode('acme', { commit: 7n, prepare: 7n });
    expect(() => codec.decode('globex', id)).toThrow(ForeignEventIdError);
    expect(() => new EventIdCodec(randomBytes(32)).decode('acme', id)).toThrow(ForeignEventIdError);
    const flipped = `${id.slice(0, 20)}${id[20] === 'A' ? 'B' : 'A'}${id.slice(21)}`;
    expect(() => codec.decode('acme', flipped)).toThrow(ForeignEventIdError);
    for (const garbled of ['', '42', '42/42', 'x'.repeat(43), `${id}=`]) expect(() => codec.decode('acme', garbled)).toThrow(ForeignEventIdError);
  });
});
