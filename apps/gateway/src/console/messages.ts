/** The console's languages: German when the browser asks for it first, English otherwise. */
export type ConsoleLocale = 'en' | 'de';

/** The locale of a request's Accept-Language (the booking page's rule). */
export function consoleLocale(acceptLanguage: string | undefined): ConsoleLocale {
  return /^de\b/i.test(acceptLanguage ?? '') ? 'de' : 'en';
}

/** The console's words, per locale. */
export const TEXT = {
  en: {
    console: 'Operator console',
    signInTitle: 'Sign in',
    signInLead:
      'Sign in with an operator key (agw_ak_…). It is checked, never stored; the session ends after 30 minutes without use.',
    operatorKey: 'Operator key',
    signIn: 'Sign in',
    signOut: 'Sign out',
    signedInAs: 'Signed in with key',
    badKey: 'This key cannot sign in here: only a live operator key can.',
    tooMany: 'Too many sign-in attempts. Try again in a few minutes.',
    expired: 'Your session ended. Sign in again.',
    approvals: 'Approvals',
    approvalsLead: 'Calls waiting for your decision, oldest first.',
    none: 'Nothing is waiting.',
    organization: 'Organization',
    installation: 'Installation (app)',
    capability: 'Capability',
    risk: 'Risk',
    cost: 'Estimated cost',
    credits: 'credits',
    reason: 'Why it waits',
    waitingSince: 'Waiting since',
    expires: 'Expires',
    parameters: 'Parameters',
    field: 'Field',
    value: 'Value',
    paramsUnknown:
      'The parameters of this approval were not kept (it was created before the console existed); only their hash is known:',
    note: 'Note (optional, kept in the audit trail)',
    approve: 'Approve',
    deny: 'Deny',
    approved: 'Approved. The agent’s next invoke with its approval token runs the call.',
    denied: 'Denied. The agent’s next invoke with its approval token is refused.',
    alreadyDecided: 'This approval was already decided or has expired.',
    pages: 'Pages',
    older: 'Next page (newer)',
    first: 'Back to the oldest',
    masked: 'masked',
  },
  de: {
    console: 'Betreiberkonsole',
    signInTitle: 'Anmelden',
    signInLead:
      'Mit einem Betreiberschlüssel (agw_ak_…) anmelden. Er wird geprüft, nie gespeichert; die Sitzung endet nach 30 Minuten ohne Nutzung.',
    operatorKey: 'Betreiberschlüssel',
    signIn: 'Anmelden',
    signOut: 'Abmelden',
    signedInAs: 'Angemeldet mit Schlüssel',
    badKey: 'Mit diesem Schlüssel ist keine Anmeldung möglich: nur ein gültiger Betreiberschlüssel.',
    tooMany: 'Zu viele Anmeldeversuche. Bitte in ein paar Minuten erneut versuchen.',
    expired: 'Ihre Sitzung ist abgelaufen. Bitte erneut anmelden.',
    approvals: 'Freigaben',
    approvalsLead: 'Aufrufe, die auf Ihre Entscheidung warten, die ältesten zuerst.',
    none: 'Nichts wartet.',
    organization: 'Organisation',
    installation: 'Installation (App)',
    capability: 'Fähigkeit',
    risk: 'Risiko',
    cost: 'Geschätzte Kosten',
    credits: 'Credits',
    reason: 'Warum es wartet',
    waitingSince: 'Wartet seit',
    expires: 'Läuft ab',
    parameters: 'Parameter',
    field: 'Feld',
    value: 'Wert',
    paramsUnknown:
      'Die Parameter dieser Freigabe wurden nicht aufbewahrt (sie entstand vor der Konsole); bekannt ist nur ihr Hash:',
    note: 'Notiz (optional, im Audit-Protokoll)',
    approve: 'Freigeben',
    deny: 'Ablehnen',
    approved: 'Freigegeben. Der nächste Aufruf des Agenten mit seinem Freigabe-Token führt den Aufruf aus.',
    denied: 'Abgelehnt. Der nächste Aufruf des Agenten mit seinem Freigabe-Token wird abgewiesen.',
    alreadyDecided: 'Über diese Freigabe wurde bereits entschieden, oder sie ist abgelaufen.',
    pages: 'Seiten',
    older: 'Nächste Seite (neuere)',
    first: 'Zurück zu den ältesten',
    masked: 'maskiert',
  },
} as const satisfies Record<ConsoleLocale, Record<string, string>>;

/** The words of one locale. */
export type ConsoleText = (typeof TEXT)[ConsoleLocale];
