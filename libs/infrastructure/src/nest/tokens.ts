export { EVENT_STORE } from '../event-store/event-store.port';
export { READ_STORE } from '../read-store/read-store.port';
export const SETTINGS = Symbol('SETTINGS');
