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
