import { Webhook } from 'standardwebhooks';
import type { RouteKind, RouteTarget } from '../../../domain/routes/route-kinds.js';
import type { RouteMessage } from '../message.js';
import { discordBody, matrixContent, ntfyRequest, slackBody, teamsBody, telegramHtml } from './chat.js';

export interface OutboundRequest {
  method: 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The id the receiver gave the message, kept so later events edit it (Discord, Telegram, Matrix). */
  refOf?: (answer: string) => string | null;
}

export interface RenderInput {
  kind: RouteKind;
  target: RouteTarget;
  message: RouteMessage;
  /** The message an earlier event of this alert posted through this route. */
  messageRef: string | null;
  /** Stable per (event, route): the Standard Webhooks `webhook-id`, Matrix's transaction id. */
  webhookId: string;
  /** The `webhook` kind's body: the alert's standard JSON plus `event` and `channel`. */
  webhookPayload: unknown;
  now: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function readJson(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Edits replace the message an earlier event posted; a reopen (`alert.opened`) always posts anew, so it notifies. */
const edits = (i: RenderInput) => i.messageRef !== null && i.message.event !== 'alert.opened';

/** The one request that delivers `message` to the receiver, in its own format. */
export function renderRequest(i: RenderInput): OutboundRequest {
  const { target: t, message: m } = i;
  switch (i.kind) {
    case 'slack':
      return { method: 'POST', url: t.url!, headers: JSON_HEADERS, body: JSON.stringify(slackBody(m)) };
    case 'teams':
      return { method: 'POST', url: t.url!, headers: JSON_HEADERS, body: JSON.stringify(teamsBody(m)) };
    case 'discord': {
      const url = new URL(t.url!);
      if (edits(i)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/messages/${encodeURIComponent(i.messageRef!)}`;
      else url.searchParams.set('wait', 'true');
      return {
        method: edits(i) ? 'PATCH' : 'POST', url: url.toString(), headers: JSON_HEADERS, body: JSON.stringify(discordBody(m)),
        refOf: (answer) => (edits(i) ? i.messageRef : stringOf(readJson(answer)?.id)),
      };
    }
    case 'telegram': {
      const base = `${t.apiUrl!.replace(/\/+$/, '')}/bot${t.botToken!}`;
      if (edits(i)) {
        const [type, id] = i.messageRef!.split(':');
        const method = type === 'photo' ? 'editMessageCaption' : 'editMessageText';
        const text = telegramHtml(m, type === 'photo' ? 1024 : 4096);
        const body = { chat_id: t.chatId, message_id: Number(id), parse_mode: 'HTML', ...(type === 'photo' ? { caption: text } : { text }) };
        return { method: 'POST', url: `${base}/${method}`, headers: JSON_HEADERS, body: JSON.stringify(body), refOf: () => i.messageRef };
      }
      const photo = m.imageUrl !== null;
      const body = photo
        ? { chat_id: t.chatId, photo: m.imageUrl, caption: telegramHtml(m, 1024), parse_mode: 'HTML' }
        : { chat_id: t.chatId, text: telegramHtml(m, 4096), parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
      return {
        method: 'POST', url: `${base}/${photo ? 'sendPhoto' : 'sendMessage'}`, headers: JSON_HEADERS, body: JSON.stringify(body),
        refOf: (answer) => {
          const id = (readJson(answer)?.result as Record<string, unknown> | undefined)?.message_id;
          return typeof id === 'number' ? `${photo ? 'photo' : 'text'}:${id}` : null;
        },
      };
    }
    case 'matrix': {
      const content = matrixContent(m);
      const body = edits(i)
        ? { ...content, body: `* ${content.body}`, 'm.new_content': content, 'm.relates_to': { rel_type: 'm.replace', event_id: i.messageRef } }
        : content;
      // The transaction id is the delivery's stable id: a resend after a crash is the same event to the homeserver.
      const url = `${t.url!.replace(/\/+$/, '')}/_matrix/client/v3/rooms/${encodeURIComponent(t.room!)}/send/m.room.message/${encodeURIComponent(i.webhookId)}`;
      return {
        method: 'PUT', url, headers: { ...JSON_HEADERS, authorization: `Bearer ${t.accessToken!}` }, body: JSON.stringify(body),
        refOf: (answer) => (edits(i) ? i.messageRef : stringOf(readJson(answer)?.event_id)),
      };
    }
    case 'ntfy': {
      const { headers, body } = ntfyRequest(m);
      if (t.token) headers.authorization = `Bearer ${t.token}`;
      return { method: 'POST', url: t.url!, headers, body };
    }
    case 'webhook': {
      const body = JSON.stringify(i.webhookPayload);
      const at = new Date(Math.floor(i.now / 1000) * 1000);
      const signature = new Webhook(t.secret!).sign(i.webhookId, at, body);
      return {
        method: 'POST', url: t.url!, body,
        headers: { ...JSON_HEADERS, 'webhook-id': i.webhookId, 'webhook-timestamp': String(Math.floor(i.now / 1000)), 'webhook-signature': signature },
      };
    }
  }
}

const stringOf = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : null);
