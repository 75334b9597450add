/** Failure types of WhatsApp sends that no retry changes (pure: shared by activities and workflows). */
export const WHATSAPP_FAILURES = {
  /** The Cloud API refused the request (a 4xx other than a throttle): sending it again changes nothing. */
  rejected: 'WhatsAppRejected',
  /** No access token or phone number id on this worker. */
  notConfigured: 'WhatsAppNotConfigured',
} as const;
