export {
  FILTER_LIMITS,
  compileFilter,
  compileFilterAst,
  normaliseTimestamp,
  parseFilter,
  type Comparator,
  type FieldType,
  type FilterArg,
  type FilterAst,
  type FilterField,
  type FilterMember,
  type FilterSchema,
  type FilterText,
} from './filter';
export { literalCondition, literalRegex, matchesLiteral, parseLiteralPattern, type LiteralKind, type LiteralPattern } from './literal-pattern';
export { parseOrderBy, toMongoSort, type SortKey } from './order-by';
export {
  decodePageToken,
  encodePageToken,
  keysetFilter,
  pageSize,
  queryFingerprint,
  sortKeyValues,
  type FingerprintInput,
  type KeysetKey,
  type PageSizeOptions,
  type PageTokenPayload,
} from './page-token';
export { parseUpdateMask, type UpdateMask, type UpdateMaskSpec } from './field-mask';
