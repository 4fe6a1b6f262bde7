import { ClaimUniqueValuesHandler } from './claim-unique-values';
import { DecideAndAppendHandler } from './decide-and-append';
import { GetDocumentHandler, ListDocumentsHandler } from './queries';

/** The api's command and query handlers: the one write path (claims, then decide and append) and the reads. */
export const CQRS_HANDLERS = [ClaimUniqueValuesHandler, DecideAndAppendHandler, GetDocumentHandler, ListDocumentsHandler];
