import { look, type Styling } from './styling.js';
import type { ChatCardModel } from './view-model.js';

/**
 * A chat message's reactions as chips under it (emoji and count, as Slack and Discord show them).
 * The list carries the whole sum as its name ("3 reactions: 👍 2, 🎉 1"), so a screen reader hears
 * one sentence instead of bare emoji; nothing at all when there are none.
 */
export function Reactions(props: { styling: Styling; reactions: ChatCardModel['reactions'] }) {
  const { styling, reactions } = props;
  if (!reactions.items.length) return null;
  return (
    <ul {...look(styling, 'reactions')} aria-label={reactions.label}>
      {reactions.items.map((r) => (
        <li {...look(styling, 'reaction')} aria-hidden="true">
          {r.emoji} <span {...look(styling, 'reactionCount')}>{r.count}</span>
        </li>
      ))}
    </ul>
  );
}

/** The thread or forum post a message belongs to, as a chip beside its time, with the post's tags. */
export function ThreadChip(props: { styling: Styling; thread: NonNullable<ChatCardModel['thread']>; tags: string[] }) {
  const { styling, thread, tags } = props;
  return (
    <span {...look(styling, 'threadLine')}>
      <span {...look(styling, 'threadChip')}>
        Thread: {thread.name}
      </span>
      {tags.map((t) => (
        <span {...look(styling, 'tagChip')}>{t}</span>
      ))}
    </span>
  );
}
