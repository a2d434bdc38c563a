/** A stop request: `stopped` resolves with the first SIGINT or SIGTERM; `dispose()` stops listening. */
export interface StopSignal {
  readonly stopped: Promise<string>;
  dispose(): void;
}

/** Listens for SIGINT and SIGTERM (which then no longer end the process by default) until disposed. */
export function listenForStop(): StopSignal {
  let resolve!: (signal: string) => void;
  const stopped = new Promise<string>((done) => {
    resolve = done;
  });
  const stop = (signal: NodeJS.Signals) => resolve(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    stopped,
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** `agw serve`'s stop: the name of the first SIGTERM or SIGINT; a second one exits at once. */
export function processStopSignal(): Promise<string> {
  return listenForStop().stopped.then((signal) => {
    // A second signal forces the exit: the operator does not want to wait for the drain.
    const force = () => {
      process.stderr.write('agw: second stop signal; exiting without waiting for the shutdown\n');
      process.exit(1);
    };
    process.once('SIGTERM', force);
    process.once('SIGINT', force);
    return signal;
  });
}
