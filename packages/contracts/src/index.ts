export type { ErrorCode, ErrorCodeInfo } from './errors.js';
export { errorCodes, isErrorCode } from './errors.js';
