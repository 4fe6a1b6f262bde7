import { GetDocumentHandler, ListDocumentsHandler } from './queries';

/** The api's query handlers (the reads); the command handlers are the application layer's (ApplicationModule). */
export const QUERY_HANDLERS = [GetDocumentHandler, ListDocumentsHandler];
