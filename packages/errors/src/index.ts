/**
 * The 15 standard tool error codes, their metadata, and the one boundary where anything
 * thrown becomes a code.
 *
 * @packageDocumentation
 * @module \@candor/errors
 */
export {
  allToolErrorCodes,
  isToolErrorCode,
  ToolErrorCode,
} from './tool-error-code.ts';
export { codeMetadata, ErrorCategory, metadataOf } from './code-metadata.ts';
export type { CodeMetadata } from './code-metadata.ts';
export { isToolError, ToolError } from './tool-error.ts';
export type { ToolErrorOptions } from './tool-error.ts';
export { classifyError } from './classify-error.ts';
export type { ClassifyOptions } from './classify-error.ts';
export type { ClassifiedError } from './classified-error.ts';
export { scrubUrlSecrets } from './scrub-url-secrets.ts';
export { describeThrown } from './describe-thrown.ts';
export { retryAfterMsFrom } from './retry-after.ts';
export type { HeaderSource } from './retry-after.ts';
export { silentLogger } from './logger.ts';
export type { Logger, LogMethod } from './logger.ts';
export { guardLogger } from './guard-logger.ts';
export { readForeign, readOwnFields, readProperty } from './read-foreign.ts';
export type { ForeignRead } from './read-foreign.ts';
export { snapshotJson } from './snapshot-json.ts';
export type {
  JsonSnapshot,
  Redaction,
  SnapshotRedactor,
} from './snapshot-json.ts';
export { assembleFields, snapshotFields } from './snapshot-fields.ts';
export type { FieldBounds, FieldsSnapshot } from './snapshot-fields.ts';
export {
  SNAPSHOT_MAX_CHARS,
  SNAPSHOT_MAX_DEPTH,
  TOO_DEEP,
  TOO_LARGE,
} from './snapshot-budget.ts';
