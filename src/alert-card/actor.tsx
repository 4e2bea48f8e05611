import type { ActorModel, ChatCardModel, Tone } from './view-model.js';
import { look, type Styling } from './styling.js';

/** A 20px avatar, or the initials in a circle when the sender gave no (http(s)) avatar. */
export function Avatar(props: { styling: Styling; avatarUrl: string | null; initials: string }) {
  const { styling } = props;
  if (props.avatarUrl) {
    // Decorative: the name follows it, so screen readers skip the image.
    return <img src={props.avatarUrl} alt="" width="20" height="20" {...look(styling, 'avatar')} />;
  }
  return (
    <span aria-hidden="true" {...look(styling, 'initials')}>
      {props.initials}
    </span>
  );
}

/** "By <name> (email · company · plan · location)", the name linking to the actor's profile when it is http(s). */
export function Actor(props: { styling: Styling; actor: ActorModel }) {
  const { styling, actor: x } = props;
  return (
    <span {...look(styling, 'actor')}>
      <Avatar styling={styling} avatarUrl={x.avatarUrl} initials={x.initials} />
      By{' '}
      {x.profileUrl ? (
        <a href={x.profileUrl} rel="noopener noreferrer nofollow" {...look(styling, 'actorName')}>
          {x.name}
        </a>
      ) : (
        <b {...look(styling, 'actorName')}>{x.name}</b>
      )}
      {x.details.length ? (
        <>
          {' '}
          <span {...look(styling, 'actorDetails')}>({x.details.join(' · ')})</span>
        </>
      ) : null}
    </span>
  );
}

const ROLE_TONE: Record<ChatCardModel['author']['role'], Tone> = { owner: 'warning', bot: 'info', member: 'neutral' };

/** A chat message's author with the role badge (owner, bot, member): members are the real user feedback. */
export function ChatAuthor(props: { styling: Styling; author: ChatCardModel['author'] }) {
  const { styling, author } = props;
  return (
    <>
      <Avatar styling={styling} avatarUrl={null} initials={author.initials} />
      <b {...look(styling, 'author')}>{author.name}</b>
      <span {...look(styling, 'roleBadge', ROLE_TONE[author.role])}>{author.role}</span>
    </>
  );
}

/** The message a chat message replies to: its author and an excerpt. */
export function ReplyQuote(props: { styling: Styling; replyTo: NonNullable<ChatCardModel['replyTo']> }) {
  const { styling, replyTo } = props;
  return (
    <blockquote {...look(styling, 'replyQuote')}>
      ↩ <span {...look(styling, 'replyAuthor')}>{replyTo.author}</span>: {replyTo.excerpt}
    </blockquote>
  );
}
