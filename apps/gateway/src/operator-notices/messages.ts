/** What one notice says in a mail: a summary line and the console link that shows it. */
export interface NoticeLine {
  readonly kind: 'installation' | 'approval';
  readonly summary: string;
  readonly link: string;
  readonly createdAt: Date;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/** Names come from agents (app and organization names): one line each, bounded. */
export function clean(value: string): string {
  return value.replace(CONTROL, ' ').slice(0, 200);
}

const WHAT: Record<NoticeLine['kind'], string> = {
  installation: 'Installation waiting for approval',
  approval: 'Run waiting for approval',
};

/**
 * The operator mail: one notice in full, or a digest of several (oldest first, at most `shown` listed,
 * the rest counted). English only: the gateway has no default locale setting (the console picks its
 * language per request from the browser).
 */
export function operatorMail(
  lines: readonly NoticeLine[],
  total: number,
  digestSeconds: number,
): { subject: string; text: string } {
  const first = lines[0];
  if (total === 1 && first) {
    return {
      subject: `Agent Gateway: ${WHAT[first.kind].toLowerCase()}`,
      text: [
        `${WHAT[first.kind]}:`,
        '',
        `  ${first.summary}`,
        '',
        `Open it in the console: ${first.link}`,
        '',
        `More arrivals within ${digestSeconds} seconds are listed in one digest mail.`,
        '',
      ].join('\n'),
    };
  }
  const listed = lines.map((line) =>
    [`- ${WHAT[line.kind]} (${line.createdAt.toISOString()})`, `  ${line.summary}`, `  ${line.link}`].join(
      '\n',
    ),
  );
  const more = total > lines.length ? [`… and ${total - lines.length} more in the console.`, ''] : [];
  return {
    subject: `Agent Gateway: ${total} things waiting for approval`,
    text: [`${total} things started waiting for an operator:`, '', ...listed, '', ...more].join('\n'),
  };
}
