import { ClaimSessionNameHandler } from '../sessions/start-session';
import { ClaimUniqueValuesHandler } from './claim-unique-values';
import { DecideAndAppendHandler } from './decide-and-append';

/** The command handlers of both processes: the one write path (claims, then decide and append). */
export const COMMAND_HANDLERS = [ClaimUniqueValuesHandler, DecideAndAppendHandler, ClaimSessionNameHandler];
