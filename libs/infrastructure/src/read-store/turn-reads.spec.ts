import type { Doc, DocKey } from './read-store.port';
import { TurnReads } from './turn-reads';

/** A store whose documents can change between reads, counting its reads. */
function store() {
  const docs = new Map<string, Doc>([['keys|k', { _id: 'k', _pos: 1 }]]);
  const reads: DocKey[][] = [];
  return {
    docs,
    reads,
    findByIds: async (keys: readonly DocKey[]) => {
      reads.push([...keys]);
      return keys.map((k) => docs.get(`${k.collection}|${k.id}`) ?? null);
    },
  };
}

const KEY = { collection: 'keys', id: 'k' };
const OTHER = { collection: 'keys', id: 'other' };

describe('TurnReads', () => {
  it('makes one read for the asks of one turn, and separate reads for other documents', async () => {
    const s = store();
    const turn = new TurnReads(s);
    const answers = await Promise.all([turn.findByIds([KEY]), turn.findByIds([KEY]), turn.findByIds([KEY]), turn.findByIds([OTHER])]);
    expect(answers.map((a) => a[0]?._pos ?? null)).toEqual([1, 1, 1, null]);
    expect(s.reads).toEqual([[KEY], [OTHER]]);
    expect(turn.size).toBe(0);
  });

  it('never lets asks for different documents share a read, whatever characters the ids hold', async () => {
    const s = store();
    s.docs.set('k|a', { _id: 'a' });
    s.docs.set('k|b', { _id: 'b' });
    const turn = new TurnReads(s);
    // Joined with separators, these two asks would have the same key.
    const [one, two] = await Promise.all([
      turn.findByIds([{ collection: 'k', id: 'a\u0001k\u0000b' }]),
      turn.findByIds([{ collection: 'k', id: 'a' }, { collection: 'k', id: 'b' }]),
    ]);
    expect(one).toEqual([null]);
    expect(two.map((d) => d?._id)).toEqual(['a', 'b']);
    expect(s.reads).toHaveLength(2);
  });

  it('reads afresh for an ask made after the read started: a change committed before it is seen', async () => {
    const s = store();
    const turn = new TurnReads(s);
    const first = turn.findByIds([KEY]);
    await first;
    s.docs.set('keys|k', { _id: 'k', _pos: 2 });
    expect((await turn.findByIds([KEY]))[0]?._pos).toBe(2);
    expect(s.reads).toHaveLength(2);
  });

  it('reads after the asks of the turn, so a change committed meanwhile is seen by the first asker too', async () => {
    const s = store();
    const turn = new TurnReads(s);
    const first = turn.findByIds([KEY]);
    // Still in the turn that asked: the read has not been made yet.
    s.docs.set('keys|k', { _id: 'k', _pos: 3 });
    expect((await first)[0]?._pos).toBe(3);
  });

  it('gives every asker of a failed read the error, and the next turn reads again', async () => {
    let fail = true;
    const turn = new TurnReads({
      findByIds: async (keys) => {
        if (fail) throw new Error('store down');
        return keys.map(() => null);
      },
    });
    const asks = [turn.findByIds([KEY]), turn.findByIds([KEY])];
    await expect(Promise.all(asks)).rejects.toThrow('store down');
    await expect(asks[1]).rejects.toThrow('store down');
    fail = false;
    expect(await turn.findByIds([KEY])).toEqual([null]);
  });
});
