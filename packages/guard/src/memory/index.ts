export { createMemoryApprovalStore, type MemoryApprovalStore } from './approval-store.js';
export { createMemoryAuditSink, type MemoryAuditSink, type StoredAuditRecord } from './audit-sink.js';
export { createManualClock, type ManualClock, systemClock } from './clock.js';
export { createStaticEgressPolicy } from './egress-policy.js';
export { createMemoryInstallationStore, type MemoryInstallationStore } from './installation-store.js';
export { createMemoryKeyStore, type IssueKeyInput, type MemoryKeyStore } from './key-store.js';
export { createMemoryRateLimiter } from './rate-limiter.js';
export { createMemoryWallet, type LedgerEntry, type MemoryWallet } from './wallet.js';
