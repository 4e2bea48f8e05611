/** The channel an e-mail is about, as its header, subject and footer name it. */
export interface ChannelInfo {
  name: string;
  slug: string;
  icon: string;
  workspaceName: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** The dashboard pages an e-mail links to for its recipient (src/domain/auth/unsubscribe-links.ts builds them). */
export interface EmailLinks {
  channelUrl: string;
  settingsUrl: string;
  /** RFC 8058 one-click: also sent as the List-Unsubscribe header. */
  unsubscribeUrl: string;
  /** Signed for this recipient and alert (src/domain/alert-action-links.ts): absent once the alert is resolved. */
  actions?: { acknowledgeUrl: string; resolveUrl: string };
}
