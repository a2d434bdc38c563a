/** A promise one step of a test waits on and the function another step opens it with. */
export interface Gate {
  readonly opened: Promise<void>;
  readonly open: () => void;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
