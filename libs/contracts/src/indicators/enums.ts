/** Indicator kinds and limits, apart from the DTOs so the domain can read them without decorators. */
export const INDICATOR_KINDS = ['INDICATOR_KIND_RATIO', 'INDICATOR_KIND_GAUGE'] as const;
export type IndicatorKind = (typeof INDICATOR_KINDS)[number];

/** Limits (docs/operations.md, "Limits"). */
export const INDICATOR_LIMITS = {
  displayName: 200,
  description: 10_000,
  engineSql: 20_000,
  connections: 16,
  /** Stored query error text is cut to this many characters (the spec leaves the length open). */
  queryError: 4_000,
  activityDescription: 1_000,
  batchGet: 100,
  purgeSample: 10,
} as const;
