import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type Metadata = ReturnType<Lookup>;

const installed = new WeakSet<Storage>();

/**
 * class-validator finds a class's rules on every validation by walking every decorated class of the
 * process (an `instanceof` each, then filters): its cost grew with every area we added, to about 5%
 * of a GetNote. Rules are registered by decorators as modules load, so the answer is memoized per
 * class and options, and registering any rule forgets every memo.
 */
export function memoizeValidationMetadata(storage: Storage = getMetadataStorage()): void {
  if (installed.has(storage)) return;
  installed.add(storage);
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  let byClass = new WeakMap<object, Map<string, Metadata>>();
  // The grouping of a memoized list: the validator only reads it.
  let grouped = new WeakMap<Metadata, ReturnType<Storage['groupByPropertyName']>>();
  const forget = <A extends unknown[]>(register: (...args: A) => void) => (...args: A): void => {
    byClass = new WeakMap();
    grouped = new WeakMap();
    register(...args);
  };
  storage.addValidationMetadata = forget(storage.addValidationMetadata.bind(storage));
  storage.addConstraintMetadata = forget(storage.addConstraintMetadata.bind(storage));
  // (addValidationSchema registers through addValidationMetadata.)
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let forClass = byClass.get(target);
    if (!forClass) byClass.set(target, (forClass = new Map()));
    let found = forClass.get(key);
    if (!found) forClass.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (!found) grouped.set(metadata, (found = group(metadata)));
    return found;
  };
}
