import type { Child } from 'hono/jsx';
import type { RoutePreview } from '../../domain/routes/route-preview.js';

/**
 * "What will Slack show?": the message a route sends, drawn from the very request body the sender
 * builds for a sample alert (src/notify/routes/preview.ts). Each receiver's look is approximated
 * with our own styles (routes.css); the exact payload is one click away under it. Nothing is sent.
 */
type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Slack's mrkdwn as shown: `*bold*` spans and line breaks; the entities the sender escaped are decoded back to text. */
function Mrkdwn(props: { text: string }) {
  const text = props.text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const parts = text.split(/(\*[^*\n]+\*)/);
  return <>{parts.map((p) => (p.length > 2 && p.startsWith('*') && p.endsWith('*') ? <b>{p.slice(1, -1)}</b> : p))}</>;
}

/**
 * The HTML subset Telegram and Matrix take (b, i, a, h4, p, ul, li), turned back into elements. The
 * sender escaped every text; anything else that looks like a tag stays text.
 */
function LimitedHtml(props: { html: string }): Child {
  const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  const tokens = props.html.split(/(<\/?(?:b|i|h4|p|ul|li)>|<a href="[^"]*">|<\/a>)/);
  const root = new TagNode('root');
  const stack: TagNode[] = [root];
  for (const t of tokens) {
    const open = /^<(b|i|h4|p|ul|li)>$/.exec(t)?.[1] ?? (t.startsWith('<a href="') ? 'a' : null);
    if (open) {
      const node = new TagNode(open, open === 'a' ? decode(/href="([^"]*)"/.exec(t)![1]!) : undefined);
      stack.at(-1)!.children.push(node);
      stack.push(node);
    } else if (/^<\/(b|i|h4|p|ul|li|a)>$/.test(t)) {
      if (stack.length > 1) stack.pop();
    } else if (t) {
      // Telegram keeps the text's line breaks; Matrix's HTML has none between its blocks.
      decode(t).split('\n').forEach((line, i) => {
        if (i > 0) stack.at(-1)!.children.push(BREAK);
        stack.at(-1)!.children.push(line);
      });
    }
  }
  return root.render();
}

const BREAK = Symbol('line break');

/** One element of the limited HTML, with its children (text, line breaks and elements). */
class TagNode {
  readonly children: (string | typeof BREAK | TagNode)[] = [];
  constructor(readonly tag: string, readonly href?: string) {}

  render(): Child {
    const kids = this.children.map((c) => (c === BREAK ? <br /> : c instanceof TagNode ? c.render() : c));
    switch (this.tag) {
      case 'b': return <b>{kids}</b>;
      case 'i': return <i>{kids}</i>;
      case 'h4': return <p class="pv-title">{kids}</p>;
      case 'p': return <p>{kids}</p>;
      case 'ul': return <ul>{kids}</ul>;
      case 'li': return <li>{kids}</li>;
      case 'a': return <span class="pv-link" title={this.href}>{kids}</span>;
      default: return <>{kids}</>;
    }
  }
}

function Slack(props: { json: Json }) {
  return (
    <div class="pv pv-slack">
      <span class="pv-avatar" aria-hidden="true">🔔</span>
      <div class="pv-main">
        <p class="pv-author">Alertbridge <span class="pv-app">APP</span></p>
        {arr(props.json.blocks).map((raw) => {
          const b = obj(raw);
          switch (b.type) {
            case 'header': return <p class="pv-title">{str(obj(b.text).text)}</p>;
            case 'section':
              return b.fields ? (
                <div class="pv-fields">{arr(b.fields).map((f) => <div><Mrkdwn text={str(obj(f).text)} /></div>)}</div>
              ) : (
                <p class="pv-text"><Mrkdwn text={str(obj(b.text).text)} /></p>
              );
            case 'actions': return <div class="pv-buttons">{arr(b.elements).map((e) => <span class="pv-button">{str(obj(obj(e).text).text)}</span>)}</div>;
            case 'context': return <p class="pv-context">{arr(b.elements).map((e) => <Mrkdwn text={str(obj(e).text)} />)}</p>;
            default: return null;
          }
        })}
      </div>
    </div>
  );
}

function Discord(props: { json: Json }) {
  const embed = obj(arr(props.json.embeds)[0]);
  const colour = `#${Number(embed.color ?? 0).toString(16).padStart(6, '0')}`;
  return (
    <div class="pv pv-discord">
      <span class="pv-avatar" aria-hidden="true">🔔</span>
      <div class="pv-main">
        <p class="pv-author">Alertbridge <span class="pv-app">BOT</span></p>
        {/* The level's colour is the embed's left bar, as Discord draws it; the footer says the level in words. */}
        <div class={`pv-embed pv-bar-${colour.slice(1)}`}>
          <p class="pv-title pv-link">{str(embed.title)}</p>
          {embed.description ? <p class="pv-text">{str(embed.description)}</p> : null}
          <div class="pv-fields">
            {arr(embed.fields).map((f) => (
              <div>
                <b>{str(obj(f).name)}</b>
                <br />
                {str(obj(f).value)}
              </div>
            ))}
          </div>
          <p class="pv-context">{str(obj(embed.footer).text)}</p>
        </div>
      </div>
    </div>
  );
}

function Teams(props: { json: Json }) {
  const card = obj(obj(arr(props.json.attachments)[0]).content);
  return (
    <div class="pv pv-teams">
      <div class="pv-card">
        {arr(card.body).map((raw) => {
          const b = obj(raw);
          if (b.type === 'TextBlock') {
            const cls = b.weight === 'Bolder' ? `pv-title pv-tone-${str(b.color).toLowerCase()}` : b.isSubtle ? 'pv-context' : 'pv-text';
            return <p class={cls}>{str(b.text)}</p>;
          }
          if (b.type === 'FactSet') {
            return (
              <dl class="pv-facts">
                {arr(b.facts).map((f) => (
                  <>
                    <dt>{str(obj(f).title)}</dt>
                    <dd>{str(obj(f).value)}</dd>
                  </>
                ))}
              </dl>
            );
          }
          return null;
        })}
        <div class="pv-buttons">{arr(card.actions).map((a) => <span class="pv-button">{str(obj(a).title)}</span>)}</div>
      </div>
    </div>
  );
}

function Bubble(props: { html: string; kind: 'telegram' | 'matrix' }) {
  return (
    <div class={`pv pv-${props.kind}`}>
      <span class="pv-avatar" aria-hidden="true">🔔</span>
      <div class="pv-main pv-bubble">
        <p class="pv-author">Alertbridge</p>
        <LimitedHtml html={props.html} />
      </div>
    </div>
  );
}

const NTFY_TAG_EMOJI: Record<string, string> = { warning: '⚠️', rotating_light: '🚨', white_check_mark: '✅', x: '❌', fire: '🔥', rocket: '🚀', bell: '🔔', information_source: 'ℹ️' };
const NTFY_PRIORITY: Record<string, string> = { '3': 'default priority', '4': 'high priority', '5': 'urgent priority' };

function Ntfy(props: { preview: RoutePreview }) {
  const h = props.preview.headers;
  const tags = (h.tags ?? '').split(',').filter(Boolean);
  const emoji = tags.map((t) => NTFY_TAG_EMOJI[t]).filter(Boolean).join(' ');
  const words = tags.filter((t) => !NTFY_TAG_EMOJI[t]);
  return (
    <div class="pv pv-ntfy">
      <div class="pv-card">
        <p class="pv-context">
          ntfy.sh/my-alerts · {NTFY_PRIORITY[h.priority ?? '3'] ?? `priority ${h.priority}`}
        </p>
        <p class="pv-title">
          {emoji ? `${emoji} ` : ''}
          {h.title}
        </p>
        <p class="pv-text">
          {props.preview.body.split('\n').flatMap((line, i) => (i === 0 ? [line] : [<br />, line]))}
        </p>
        <p class="pv-tags">{words.map((w) => <span class="badge">{w}</span>)}</p>
      </div>
    </div>
  );
}

function Webhook(props: { preview: RoutePreview }) {
  const h = props.preview.headers;
  return (
    <div class="pv pv-webhook">
      <pre class="pv-code" tabindex={0}>
        {`${props.preview.method} ${new URL(props.preview.url).pathname}\n`}
        {['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type'].map((k) => `${k}: ${h[k] ?? ''}\n`).join('')}
        {`\n${JSON.stringify(props.preview.json, null, 2)}`}
      </pre>
    </div>
  );
}

/** The drawn message for a kind, then its exact request. */
export function RoutePreviewBox(props: { preview: RoutePreview; label: string }) {
  const p = props.preview;
  const json = obj(p.json);
  const drawn = (() => {
    switch (p.kind) {
      case 'slack': return <Slack json={json} />;
      case 'discord': return <Discord json={json} />;
      case 'teams': return <Teams json={json} />;
      case 'telegram': return <Bubble kind="telegram" html={str(json.text ?? json.caption)} />;
      case 'matrix': return <Bubble kind="matrix" html={str(json.formatted_body)} />;
      case 'ntfy': return <Ntfy preview={p} />;
      case 'webhook': return <Webhook preview={p} />;
    }
  })();
  const headers = Object.entries(p.headers).map(([k, v]) => `${k}: ${v}`).join('\n');
  return (
    <figure class="route-preview" data-kind={p.kind}>
      {drawn}
      <figcaption class="hint">
        A preview of the {props.label} message for a sample alert, drawn from the request body this route sends; {props.label} shows it in its own style.
      </figcaption>
      {p.kind === 'webhook' ? null : (
        <details class="pv-payload">
          <summary>The request sent</summary>
          <pre class="pv-code" tabindex={0}>{`${p.method} ${p.url.replace(/^https?:\/\//, '')}\n${headers}\n\n${p.json === null ? p.body : JSON.stringify(p.json, null, 2)}`}</pre>
        </details>
      )}
    </figure>
  );
}
