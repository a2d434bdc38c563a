// The production-built gateway with its catalog padded to 10 000 synthetic capabilities, for the
// search_capabilities scenario. Takes the same flags as `agw serve` (--port, --data-dir) and the same
// environment (DATABASE_URL, REDIS_URL, …).
import { parseArgs } from 'node:util';
import { loadConfig, startGateway } from '../apps/gateway/dist/index.js';
import { capabilityContracts } from '../packages/contracts/dist/index.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'data-dir': { type: 'string' } } });
const SIZE = 10_000;
const words = [
  'invoice',
  'ledger',
  'booking',
  'report',
  'archive',
  'budget',
  'contact',
  'export',
  'sync',
  'audit',
];

// Real contracts keep their ids; synthetic ones reuse a real contract's schemas under a new id, domain,
// summary and tags, so ranking has realistic text to work through.
const synthetic = Array.from({ length: SIZE - capabilityContracts.length }, (_, index) => {
  const base = capabilityContracts[index % capabilityContracts.length];
  const word = words[index % words.length];
  const other = words[(index * 7 + 3) % words.length];
  return {
    ...base,
    id: `synthetic${index % 50}.${word}_${Math.floor(index / 50)}.run`,
    domain: `synthetic${index % 50}`,
    summary: `Synthetic ${word} capability ${index} that handles ${other} records.`,
    tags: [word, other],
  };
});

const config = loadConfig(process.env, { port: values.port, dataDir: values['data-dir'] });
const gateway = await startGateway(config, { catalog: [...capabilityContracts, ...synthetic] });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => gateway.close().then(() => process.exit(0)));
}
