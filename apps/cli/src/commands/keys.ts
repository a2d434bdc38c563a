import {
  type AgentContext,
  type AgentFlags,
  agentClient,
  requireKey,
  resolveAgentConnection,
} from '../agent-context.js';
import { withGateway } from '../operator-context.js';
import { writeJson } from '../output.js';
import { updateProfile } from '../profiles.js';

/** Flags of `agw keys rotate`. */
export interface KeysRotateFlags extends AgentFlags {
  /** Print the new key once. */
  readonly showKey?: boolean | undefined;
}

/** `agw keys rotate`: POST /keys/rotate; the new key replaces the old one in the profile at once. */
export async function keysRotate(flags: KeysRotateFlags, context: AgentContext): Promise<void> {
  const connection = await resolveAgentConnection(flags, context);
  const client = agentClient(connection, context, requireKey(connection));
  const rotated = await withGateway(() => client.rotateKey());
  // Saved before printing anything: the old key no longer works and the new one is shown only now.
  await updateProfile(context.env, connection.profileName, (current) => ({
    ...current,
    url: current.url ?? connection.url,
    key: rotated.key.token,
  }));
  if (context.env.AGW_KEY?.trim()) {
    context.io.stderr('Warning: AGW_KEY is set and still holds the old key, which no longer works.\n');
  }
  if (flags.json) {
    writeJson(context.io, {
      profile: connection.profileName,
      config_path: connection.configPath,
      expires_at: rotated.key.expires_at,
      scopes: rotated.key.scopes,
      rotated_from_key_id: rotated.key.rotated_from_key_id,
      ...(flags.showKey ? { key: rotated.key.token } : {}),
    });
    return;
  }
  context.io.stdout(
    `Key rotated; the new key is saved in profile '${connection.profileName}' (${connection.configPath}) and the old one stops working. Expires ${rotated.key.expires_at}.\n`,
  );
  if (flags.showKey) context.io.stdout(`${rotated.key.token}\n`);
}
