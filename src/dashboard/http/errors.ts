/** A signed-in user asked for something their role does not allow: the 403 page. */
export class Forbidden extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A sensitive action without a recent sign-in: the page asks for the password, then re-sends the form. */
export class ReauthRequired extends Error {
  constructor(
    readonly fields: Record<string, string>,
    /** A password was given and was wrong. */
    readonly wrongPassword: boolean,
  ) {
    super('recent sign-in required');
  }
}

/** The request did not come from our own page (Origin / CSRF token). */
export class CrossSiteRefused extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}
