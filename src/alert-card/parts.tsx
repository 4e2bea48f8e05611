import type { Child } from 'hono/jsx';
import type { TextLine } from './format.js';
import type { Tone, TimeModel } from './view-model.js';
import { look, TONES, type Part, type Styling } from './styling.js';

/** Where a card was posted, for feeds that mix channels and for e-mails. */
export interface ChannelLabel {
  icon: string;
  slug: string;
  workspaceName?: string;
}

/**
 * One band of the card: a table row in e-mail (the card is a layout table there),
 * a block element on pages.
 */
export function Section(props: { styling: Styling; part: Part; as?: 'div' | 'header' | 'footer'; children?: Child }) {
  const attrs = look(props.styling, props.part);
  if (props.styling === 'inline') {
    return (
      <tr>
        <td {...attrs}>{props.children}</td>
      </tr>
    );
  }
  const Tag = props.as ?? 'div';
  return <Tag {...attrs}>{props.children}</Tag>;
}

/** The coloured strip on top of an e-mail card; pages colour the card's border from its tone class instead. */
export function Accent(props: { styling: Styling; tone: Tone }) {
  if (props.styling !== 'inline') return null;
  return (
    <tr>
      <td {...look('inline', 'accent', props.tone)}>{'\u00a0'}</td>
    </tr>
  );
}

/** A moment as the card shows it: exact minute in UTC; pages carry the instant for relative times. */
export function Time(props: { styling: Styling; time: TimeModel }) {
  if (props.styling === 'inline') return <>{props.time.text}</>;
  return (
    <time datetime={props.time.iso} title={props.time.text}>
      {props.time.text}
    </time>
  );
}

/** "🚀 #deploys · Acme · 2026-01-01 12:00 UTC" (the channel part only when given). */
export function HeaderMeta(props: { styling: Styling; channel?: ChannelLabel | undefined; time: TimeModel; edited?: TimeModel | null }) {
  const { channel } = props;
  return (
    <>
      {/* Its own element, so a page can hide it where the channel is obvious (a single channel's feed) without re-rendering. */}
      {channel && props.styling === 'classes' ? <span {...look(props.styling, 'channelLabel')}>{`${channel.icon} #${channel.slug} · `}</span> : null}
      {channel && props.styling === 'inline' ? `${channel.icon} #${channel.slug} · ` : null}
      {channel?.workspaceName ? `${channel.workspaceName} · ` : ''}
      <Time styling={props.styling} time={props.time} />
      {props.edited ? (
        <>
          {' '}
          <span {...look(props.styling, 'edited')}>(edited)</span>
        </>
      ) : null}
    </>
  );
}

/**
 * The card's top line: where and when on the left, the level badge on the right.
 * E-mail lays it out as a two-cell table (floats and flex are not safe in mail clients).
 */
export function CardHeader(props: { styling: Styling; meta: Child; badge?: { label: string; tone: Tone; spinner?: boolean } | null }) {
  const { styling, badge } = props;
  // E-mail cannot animate: there the word alone says the run is in progress.
  const spinner = badge?.spinner && styling === 'classes' ? <span aria-hidden="true" {...look(styling, 'spinner')} /> : null;
  const badgeEl = badge ? (
    <span {...look(styling, 'badge', badge.tone)}>
      {spinner}
      {badge.label}
    </span>
  ) : null;
  if (styling === 'inline') {
    return (
      <table role="presentation" width="100%" cellpadding={0} cellspacing={0} border={0}>
        <tr>
          <td {...look(styling, 'headerMeta')}>{props.meta}</td>
          {badgeEl ? (
            <td align="right" {...look(styling, 'badgeCell')}>
              {badgeEl}
            </td>
          ) : null}
        </tr>
      </table>
    );
  }
  return (
    <>
      <span {...look(styling, 'headerMeta')}>{props.meta}</span>
      {badgeEl}
    </>
  );
}

/** Sender text: lines kept (as <br>), http(s) URLs as links, everything else plain escaped text. */
export function RichText(props: { styling: Styling; lines: TextLine[] }) {
  return (
    <>
      {props.lines.map((line, i) => (
        <>
          {i > 0 ? <br /> : null}
          {line.map((s) =>
            s.href ? (
              <a href={s.href} rel="noopener noreferrer nofollow" {...look(props.styling, 'textLink')}>
                {s.text}
              </a>
            ) : (
              s.text
            ),
          )}
        </>
      ))}
    </>
  );
}

/**
 * The alert's link as a button. In e-mail a "bulletproof" button: a table cell
 * with a background colour, which Outlook renders where CSS buttons fail.
 */
export function LinkButton(props: { styling: Styling; href: string; text: string; tone: Tone }) {
  const { styling } = props;
  const a = (
    <a href={props.href} target="_blank" rel="noopener noreferrer" {...look(styling, 'button', props.tone)}>
      {props.text}
    </a>
  );
  if (styling !== 'inline') return a;
  return (
    <table role="presentation" cellpadding={0} cellspacing={0} border={0}>
      <tr>
        <td align="center" bgcolor={TONES[props.tone].color} {...look(styling, 'buttonCell', props.tone)}>
          {a}
        </td>
      </tr>
    </table>
  );
}
