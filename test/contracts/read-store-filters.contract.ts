/**
 * AIP-160 filters through a read store: compiled filters must mean the same on every path that runs
 * them (SQLite's SQL pushdown over declared paths, mingo over the rest, MongoDB's server), stay
 * linear on adversarial values, and run without a store error anywhere within FILTER_LIMITS.
 */
import { compileFilter, FILTER_LIMITS, type FilterSchema } from '@svc/infrastructure/query';
import type { Doc, ProjectionBatch, ReadStore, WriteOp } from '@svc/infrastructure/read-store/read-store.port';
import type { ReadStoreFixture } from './read-store.contract';

const schema: FilterSchema = {
  display_name: { type: 'string', path: 'displayName' },
  d: { type: 'string', path: 'displayName' },
  note: { type: 'string', path: 'note' },
  count: { type: 'number', path: 'count' },
  enabled: { type: 'boolean', path: 'enabled' },
  tags: { type: 'string[]', path: 'tags' },
  labels: { type: 'map', path: 'labels' },
};
/** Everything but `note` is declared on the indexed collection, so SQLite pushes those down. */
const declared = ['displayName', 'count', 'enabled', 'tags'];

const docs: Doc[] = [
  { n: 1, displayName: 'Checkout Service', count: 3, enabled: true, tags: ['a'], labels: { env: 'prod' } },
  { n: 2, displayName: 'checkout service', count: 0, enabled: false, tags: [], labels: {} },
  { n: 3, displayName: 'a*b', labels: { env: '' } },
  { n: 4, displayName: '' },
  { n: 5, displayName: null },
  { n: 6 },
  { n: 7, displayName: 'ends with service\n' },
  { n: 8, displayName: 'Service*' },
  { n: 9, displayName: 5 },
  { n: 10, labels: { toString: 'x', constructor: 'y' } },
  { n: 11, displayName: 'nul\u0000Service' },
];
const all = docs.map((d) => d.n as number);
const except = (...ns: number[]) => all.filter((n) => !ns.includes(n));

const cases: [string, number[]][] = [
  ['display_name = "Checkout*"', [1]],
  ['display_name = "checkout*"', [2]],
  ['display_name = "*Service"', [1, 11]],
  ['display_name = "*service*"', [2, 7]],
  ['display_name : "*ervice*"', [1, 2, 7, 8, 11]],
  ['display_name : "*SERVICE"', [1, 2, 11]],
  ['display_name : "CHECKOUT*"', [1, 2]],
  ['display_name != "*ervice*"', except(1, 2, 7, 8, 11)],
  ['display_name = "nul*"', [11]],
  ['display_name = "*l\\x00S*"', [11]],
  ['display_name = "a*b"', [3]],
  ['display_name = "*a*b"', [3]],
  ['display_name = "Service\\**"', [8]],
  ['display_name = "*"', [1, 2, 3, 4, 7, 8, 11]],
  ['display_name:*', [1, 2, 3, 7, 8, 11]],
  ['NOT display_name:*', [4, 5, 6, 9, 10]],
  ['count:*', [1]],
  ['NOT count:*', except(1)],
  ['enabled:*', [1]],
  ['tags:*', [1]],
  ['NOT tags:*', except(1)],
  ['labels:*', [1, 3, 10]],
  ['NOT labels:*', except(1, 3, 10)],
  ['labels:env', [1, 3]],
  ['labels.env:*', [1]],
  ['labels.env = "pr*"', [1]],
  ['labels.toString = "x"', [10]],
  ['labels:toString', [10]],
  ['labels.constructor = "y"', [10]],
  ['labels:valueOf', []],
  ['labels.hasOwnProperty:*', []],
];

type Context = { fixture: () => ReadStoreFixture; fresh: (prefix: string) => string };

const batch = (checkpoint: string, ops: WriteOp[]): ProjectionBatch => ({ checkpoint, position: { commit: 1n, prepare: 1n }, ops });

async function load(store: ReadStore, collections: string[], rows: Doc[]): Promise<void> {
  const ops = collections.flatMap((collection) =>
    rows.map((row): WriteOp => ({ op: 'insert', collection, doc: { _id: `acme|${row.n}`, _org: 'acme', ...row } })),
  );
  await store.commit(batch(collections[0], ops));
}

async function numbers(store: ReadStore, collection: string, text: string): Promise<number[]> {
  const found = await store.collection(collection).find({ _org: 'acme', ...compileFilter(text, schema) }, { sort: { n: 1 } });
  return found.map((d) => d.n as number);
}

export function describeFilterContract({ fixture, fresh }: Context): void {
  describe('AIP-160 filters', () => {
    let store: ReadStore;
    let plain: string;
    let indexed: string;

    beforeAll(async () => {
      store = fixture().store;
      plain = fresh('f_plain');
      indexed = fresh('f_indexed');
      await store.ensureIndexes(indexed, declared);
      await load(store, [plain, indexed], docs);
    });

    it.each(cases)('%s', async (text, expected) => {
      for (const c of [plain, indexed]) expect({ c, found: await numbers(store, c, text) }).toEqual({ c, found: expected });
    });

    it('pushes wildcards and presence on declared string paths down to SQL where the store can say', () => {
      const explain = fixture().explain;
      if (!explain) return;
      for (const text of ['d = "Check*"', 'd = "*vice"', 'd = "*erv*"', 'd != "*erv*"', 'd:*', 'NOT d:*', 'count:*', 'enabled:*']) {
        expect({ text, exact: explain(indexed, { _org: 'acme', ...compileFilter(text, schema) }).exactFilter }).toEqual({ text, exact: true });
      }
    });

    it('matches adversarial wildcards over a 100,000-character value in linear time, in SQL and in mingo', async () => {
      const long = 'a'.repeat(100_000);
      const plainLong = fresh('f_long_plain');
      const indexedLong = fresh('f_long_indexed');
      await store.ensureIndexes(indexedLong, declared);
      await load(store, [plainLong, indexedLong], [{ n: 1, displayName: long, note: long }]);
      const needle = 'a'.repeat(4000);
      const filters: [string, number[]][] = [];
      for (const field of ['display_name', 'note']) {
        filters.push(
          [`${field}:'*a*a*b'`, []],
          [`${field} = "*a*a*b"`, []],
          [`${field} = "*a*a*b*"`, []],
          [`${field} = "*${needle}b*"`, []],
          [`${field} = "${needle}b*"`, []],
          [`${field} = "*b${needle}"`, []],
          [`${field} = "*${needle}*"`, [1]],
          [`${field} != "*${needle}"`, []],
        );
      }
      for (const [text, expected] of filters) {
        const what = text.slice(0, 40);
        for (const c of [plainLong, indexedLong]) {
          expect({ c, what, found: await numbers(store, c, text) }).toEqual({ c, what, found: expected });
        }
      }
    });

    describe('within the limits, any filter runs', () => {
      const { maxDepth, maxTerms } = FILTER_LIMITS;
      const terms = (n: number, term: (i: number) => string, op = ' OR ') => Array.from({ length: n }, (_, i) => term(i)).join(op);
      /** Alternating OR / AND levels, each holding a chain of terms and the next level. */
      const nested = (levels: number, perLevel: number): string => {
        let inner = 'd = "Checkout*"';
        for (let level = 0; level < levels; level++) {
          const op = level % 2 ? ' AND ' : ' OR ';
          inner = `(${terms(perLevel, (i) => (i % 2 ? `d != "*x${i}"` : `count != ${i}`), op)}${op}${inner})`;
        }
        return inner;
      };
      const negations = (levels: number, chain: string) => `${'NOT ('.repeat(levels)}${chain}${')'.repeat(levels)}`;
      const filters: [string, string][] = [
        ['OR terms with negated wildcards', terms(maxTerms, (i) => `d != "x${i % 10}*"`)],
        ['AND terms with prefixes', terms(maxTerms, (i) => `d != "${i % 10}*"`, ' AND ')],
        ['OR terms mixing types', terms(maxTerms, (i) => [`count = ${i}`, 'enabled = true', `d = "*${i}"`, 'NOT count:*'][i % 4])],
        ['a parenthesised argument of as many values', `d = (${terms(maxTerms - 1, (i) => `"*v${i}*"`)})`],
        ['nesting as deep as allowed, a chain at every level', nested(maxDepth, Math.floor(maxTerms / maxDepth) - 1)],
        ['negations as deep as allowed around a long chain', negations(maxDepth / 2, terms(maxTerms, (i) => `d != "*${i}"`))],
      ];

      it.each(filters)('%s', async (_label, text) => {
        const filter = { _org: 'acme', ...compileFilter(text, schema) };
        const expected = await store.collection(plain).find(filter, { sort: { n: 1 } });
        expect(await store.collection(indexed).find(filter, { sort: { n: 1 } })).toEqual(expected);
        expect(await store.collection(indexed).countDocuments(filter)).toBe(expected.length);
        const explain = fixture().explain;
        if (explain) expect(explain(indexed, filter).exactFilter).toBe(true);
      });
    });
  });
}
