import packageJson from '../package.json' with { type: 'json' };

/** The gateway's own version (from its package.json), reported by /health. */
export const GATEWAY_VERSION: string = packageJson.version;
