import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPEC_METHODS } from '@svc/contracts/catalog';
import { handlerRows, handlersMarkdown, METHOD_HANDLERS_DOC } from './method-handlers';

const FILE = join(__dirname, '..', '..', '..', METHOD_HANDLERS_DOC);

// `npm run docs:handlers` runs this file with SVC_WRITE_DOCS=1: the committed table is what this code generates.
describe(METHOD_HANDLERS_DOC, () => {
  it('is what the method registry of a booted api says (npm run docs:handlers regenerates it)', async () => {
    const rows = await handlerRows();
    const generated = handlersMarkdown(rows);
    if (process.env.SVC_WRITE_DOCS === '1') writeFileSync(FILE, generated);
    // Every method of the catalog has a row, and every served one names where it was registered.
    expect(rows.filter((r) => r.part !== 'extension')).toHaveLength(SPEC_METHODS.length);
    expect(rows.filter((r) => r.status === 'served' && (!r.site || r.site.file === 'unknown')).map((r) => r.key)).toEqual([]);
    expect(readFileSync(FILE, 'utf8')).toEqual(generated);
  }, 120_000);
});
