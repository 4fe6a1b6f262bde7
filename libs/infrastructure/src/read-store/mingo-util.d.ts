/**
 * mingo publishes `mingo/util` through package exports, which moduleResolution "node" does not
 * read; the declarations live under mingo/types. Runtime resolution (node, jest) uses the exports.
 */
declare module 'mingo/util' {
  export { ensureArray, flatten, resolve } from 'mingo/types/util';
}
