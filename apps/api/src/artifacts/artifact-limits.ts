/** One uploaded artifact (PUT /v1/artifacts/{sha256}): 64 MiB. */
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;
/** The artifacts one CreateInvestigation imports, together: 128 MiB. */
export const MAX_INVESTIGATION_ARTIFACT_BYTES = 128 * 1024 * 1024;
