import type { InstallationState } from '../guard.js';
import type { InstallationStore } from '../ports.js';

/** An in-memory {@link InstallationStore} whose states are set directly. */
export interface MemoryInstallationStore extends InstallationStore {
  set(state: InstallationState): void;
  update(installationId: string, changes: Partial<Omit<InstallationState, 'installation_id'>>): void;
}

/** Creates an in-memory installation store. */
export function createMemoryInstallationStore(): MemoryInstallationStore {
  const states = new Map<string, InstallationState>();
  return {
    getState: (installationId) => states.get(installationId),
    set(state) {
      states.set(state.installation_id, { ...state });
    },
    update(installationId, changes) {
      const current = states.get(installationId);
      if (current === undefined) throw new Error(`Unknown installation ${installationId}`);
      states.set(installationId, { ...current, ...changes });
    },
  };
}
