import * as fs from 'node:fs';
import * as path from 'node:path';
import { getMetadataStorage } from 'class-validator';

/** Every source file of the contracts, so that every request DTO's constraints are registered. */
function contractFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return contractFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [file] : [];
  });
}

describe('parseRequest', () => {
  it('may validate synchronously: no constraint of the contracts is asynchronous', () => {
    const files = contractFiles(path.resolve(__dirname, '../../../contracts/src'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- every contract module, loaded for its decorators
    for (const file of files) require(file);
    // The storage keeps constraints by their class; `async` is set by registerDecorator({ async: true }).
    const storage = getMetadataStorage() as unknown as { constraintMetadatas: Map<unknown, Array<{ name?: string; async: boolean }>> };
    const constraints = [...storage.constraintMetadatas.values()].flat();
    expect(files.length).toBeGreaterThan(20);
    expect(constraints.length).toBeGreaterThan(10);
    expect(constraints.filter((c) => c.async).map((c) => c.name)).toEqual([]);
  });
});
