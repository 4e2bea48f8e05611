import type { Child } from 'hono/jsx';
import { Actor, ChatAuthor, ReplyQuote } from './actor.js';
import { Attachments } from './attachments.js';
import { Fields } from './fields.js';
import { Reactions, ThreadChip } from './reactions.js';
import { Accent, CardHeader, HeaderMeta, LinkButton, RichText, Section, type ChannelLabel } from './parts.js';
import { look, type Styling } from './styling.js';
import { runPhase, type AlertCardModel, type CardModel, type ChatCardModel, type Tone } from './view-model.js';
import { WorkflowError, WorkflowSteps } from './workflow-steps.js';

export interface AlertCardProps {
  card: CardModel;
  styling: Styling;
  /** Shown in the header; leave out where the channel is obvious (a single channel's feed). */
  channel?: ChannelLabel | undefined;
  /**
   * The run phase beside the level ("run failed"). Defaults to the run's state;
   * the e-mail sent when a run starts says "run started".
   */
  phase?: string | null | undefined;
  /**
   * Pages only: the card's content without its own frame (border, background,
   * side padding), for a place that already frames it (a search result).
   */
  flat?: boolean;
}

/** One alert or chat message as a card: a layout table for e-mail, an <article> for pages. */
export function AlertCard(props: AlertCardProps) {
  const { card } = props;
  return card.kind === 'alert' ? <StandardCard {...props} card={card} /> : <ChatCard {...props} card={card} />;
}

/** The card's frame: the 600px table of an e-mail, or an article tagged with the alert's id for live updates. */
function Frame(props: { styling: Styling; card: CardModel; tone: Tone; flat?: boolean | undefined; children: Child }) {
  const { styling, card, tone } = props;
  if (styling === 'inline') {
    return (
      <table role="presentation" width="600" cellpadding={0} cellspacing={0} border={0} {...look(styling, 'card')}>
        <Accent styling={styling} tone={tone} />
        {props.children}
      </table>
    );
  }
  return (
    <article
      class={props.flat ? `${look(styling, 'card', tone).class} ${look(styling, 'flat').class}` : look(styling, 'card', tone).class}
      data-alert-id={card.id}
      data-read={card.isRead ? 'true' : 'false'}
    >
      {props.children}
    </article>
  );
}

export function StandardCard(props: AlertCardProps & { card: AlertCardModel }) {
  const { styling, card: a } = props;
  const phase = props.phase === undefined ? runPhase(a) : props.phase;
  // A run in progress says so with a spinner instead of the level ("INFO · run running" said nothing).
  const badge =
    props.phase === undefined && a.workflow?.state === 'running'
      ? { label: 'running', tone: a.workflow.tone, spinner: true }
      : { label: phase ? `${a.level} · ${phase}` : a.level, tone: a.tone };
  const Heading = styling === 'inline' ? 'h1' : 'h2';
  const meta = a.actor || a.source;
  return (
    <Frame styling={styling} card={a} tone={a.tone} flat={props.flat}>
      <Section styling={styling} part="headerSection" as="header">
        <CardHeader
          styling={styling}
          meta={<HeaderMeta styling={styling} channel={props.channel} time={a.createdAt} />}
          badge={badge}
        />
      </Section>
      <Section styling={styling} part="titleSection">
        <Heading {...look(styling, 'title')}>
          {a.emoji} {a.title}
        </Heading>
      </Section>
      {a.message ? (
        <Section styling={styling} part="section">
          <div {...look(styling, 'message')}>
            <RichText styling={styling} lines={a.message} />
          </div>
        </Section>
      ) : null}
      {a.fields.length ? (
        <Section styling={styling} part="section">
          <Fields styling={styling} rows={a.fields} />
        </Section>
      ) : null}
      {a.workflow ? (
        <Section styling={styling} part="section">
          <WorkflowSteps styling={styling} workflow={a.workflow} />
        </Section>
      ) : null}
      {a.workflow?.errorTail ? (
        <Section styling={styling} part="section">
          <WorkflowError styling={styling} workflow={a.workflow} />
        </Section>
      ) : null}
      {a.attachments.length ? (
        <Section styling={styling} part="section">
          <Attachments styling={styling} attachments={a.attachments} />
        </Section>
      ) : null}
      {a.link ? (
        <Section styling={styling} part="buttonSection">
          <LinkButton styling={styling} href={a.link.href} text={a.link.text} tone={a.tone} />
        </Section>
      ) : null}
      {meta ? (
        <Section styling={styling} part="metaSection" as="footer">
          {a.actor ? <Actor styling={styling} actor={a.actor} /> : null}
          {a.actor && a.source ? <br /> : null}
          {a.source ? (
            <>
              Source: <b {...look(styling, 'source')}>{a.source}</b>
            </>
          ) : null}
        </Section>
      ) : null}
    </Frame>
  );
}

export function ChatCard(props: AlertCardProps & { card: ChatCardModel }) {
  const { styling, card: m } = props;
  return (
    <Frame styling={styling} card={m} tone="neutral" flat={props.flat}>
      <Section styling={styling} part="headerSection" as="header">
        <CardHeader styling={styling} meta={<HeaderMeta styling={styling} channel={props.channel} time={m.createdAt} edited={m.editedAt} />} />
      </Section>
      <Section styling={styling} part="section">
        <ChatAuthor styling={styling} author={m.author} />
      </Section>
      {m.replyTo || m.message || m.thread ? (
        <Section styling={styling} part="section">
          {m.thread ? <ThreadChip styling={styling} thread={m.thread} tags={m.tags} /> : null}
          {m.replyTo ? <ReplyQuote styling={styling} replyTo={m.replyTo} /> : null}
          {m.message ? (
            <div {...look(styling, 'message')}>
              <RichText styling={styling} lines={m.message} />
            </div>
          ) : null}
        </Section>
      ) : null}
      {m.attachments.length ? (
        <Section styling={styling} part="section">
          <Attachments styling={styling} attachments={m.attachments} />
        </Section>
      ) : null}
      {m.reactions.items.length ? (
        <Section styling={styling} part="section">
          <Reactions styling={styling} reactions={m.reactions} />
        </Section>
      ) : null}
    </Frame>
  );
}
