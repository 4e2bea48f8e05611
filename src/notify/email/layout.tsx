import type { Child } from 'hono/jsx';
import { renderHtml } from '../../lib/html.js';
import { FONT } from '../../alert-card/styling.js';

/**
 * The e-mail document around a card: a grey page, the card centred at 600px,
 * the footer under it. HTML for mail clients means tables for layout, inline
 * styles only (Gmail and Outlook drop <style> and most CSS layout), no scripts,
 * images by absolute URL.
 */
function EmailPage(props: { title: string; preheader: string; footer: Child; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <title>{props.title}</title>
      </head>
      <body style="margin:0;padding:0;background-color:#f3f4f6;">
        {/* The preview line inboxes show after the subject; hidden in the message itself. */}
        <div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">{props.preheader}</div>
        <table role="presentation" width="100%" cellpadding={0} cellspacing={0} border={0} style="background-color:#f3f4f6;">
          <tr>
            <td align="center" style="padding:24px 12px;">
              {props.children}
              <table role="presentation" width="600" cellpadding={0} cellspacing={0} border={0} style="width:100%;max-width:600px;">
                <tr>
                  <td style={`padding:16px 8px;font-family:${FONT};font-size:12px;line-height:18px;color:#6b7280;`}>{props.footer}</td>
                </tr>
              </table>
            </td>
          </tr>
        </table>
      </body>
    </html>
  );
}

/** The complete HTML part: JSX has no doctype, so it is prefixed here. */
export function emailDocument(props: { title: string; preheader: string; footer: Child; card: Child }): string {
  return `<!DOCTYPE html>\n${renderHtml(
    <EmailPage title={props.title} preheader={props.preheader} footer={props.footer}>
      {props.card}
    </EmailPage>,
  )}`;
}
