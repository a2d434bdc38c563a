export { type AppDependencies, createApp, type GatewayApp } from './app.js';
export { type HealthChecks, overallStatus, runHealthChecks } from './checks/health.js';
export {
  ConfigError,
  type ConfigOverrides,
  type GatewayConfig,
  type LogLevel,
  loadConfig,
  logLevels,
  redactUrl,
} from './config.js';
export { type Database, type DatabaseDriver, openDatabase } from './db/knex.js';
export {
  type GatewayMigration,
  gatewayMigrations,
  MIGRATIONS_TABLE,
  type MigrationResult,
  runMigrations,
} from './db/migrate.js';
export { buildDiscoveryDocuments, type DiscoveryDocuments } from './discovery-documents.js';
export { jsonBody } from './http/body.js';
export { GatewayError, type GatewayErrorOptions, isDependencyFailure } from './http/gateway-error.js';
export { REQUEST_ID_HEADER } from './http/request-id.js';
export type { GatewayState } from './http/state.js';
export { renderLlmsTxt } from './llms-txt.js';
export { createLogger, type Logger, type LoggerOptions, redactSecrets } from './logger.js';
export { type GatewayHandle, type StartOptions, startGateway } from './server.js';
export { GATEWAY_VERSION } from './version.js';
