export { isDeadlock, isUnavailable, StoreUnavailableError, unavailable } from '../postgres/errors.js';
