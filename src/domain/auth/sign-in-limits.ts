// The dashboard's sign-in rate limits, enforced by the limiters `src/services.ts` builds (shared by every node on PostgreSQL).
/** Sign-in attempts per minute per e-mail address: enough for typos, far too few for guessing. */
export const SIGN_IN_PER_EMAIL_PER_MINUTE = 5;
/** Per client address: an office behind one NAT signs in together. */
export const SIGN_IN_PER_ADDRESS_PER_MINUTE = 30;
