import type { AttachmentKind, AttachmentModel } from './view-model.js';
import { look, type Styling } from './styling.js';

const KIND_EMOJI: Record<AttachmentKind, string> = { image: '🖼️', video: '🎬', audio: '🔊', file: '📎' };

/** Images at the e-mail's content width (600 less the card's padding); mail clients need the width attribute. */
const EMAIL_IMAGE_WIDTH = 552;

/**
 * Attachments inline. Images link to the full-size file; on pages, video and audio
 * get native players (the media route serves Range requests), while e-mail, where
 * players do not work, links them.
 */
export function Attachments(props: { styling: Styling; attachments: AttachmentModel[] }) {
  const { styling, attachments } = props;
  if (!attachments.length) return null;
  return <>{attachments.map((x) => <Attachment styling={styling} item={x} />)}</>;
}

function Attachment({ styling, item: x }: { styling: Styling; item: AttachmentModel }) {
  if (x.kind === 'image') {
    return (
      <a href={x.url} target="_blank" rel="noopener" {...look(styling, 'imageLink')}>
        {styling === 'inline' ? (
          <img src={x.url} alt={x.name ?? 'image'} width={EMAIL_IMAGE_WIDTH} {...look(styling, 'image')} />
        ) : (
          <img src={x.url} alt={x.name ?? 'image'} loading="lazy" decoding="async" {...look(styling, 'image')} />
        )}
      </a>
    );
  }
  const link = (
    <a href={x.url} target="_blank" rel="noopener" {...look(styling, 'mediaLink')}>
      {KIND_EMOJI[x.kind]} {x.label}
    </a>
  );
  if (styling === 'classes' && x.kind === 'video') {
    return (
      <video controls preload="metadata" src={x.url} title={x.label} {...look(styling, 'video')}>
        {link}
      </video>
    );
  }
  if (styling === 'classes' && x.kind === 'audio') {
    return (
      <audio controls preload="metadata" src={x.url} title={x.label} {...look(styling, 'audio')}>
        {link}
      </audio>
    );
  }
  return <div {...look(styling, 'mediaItem')}>{link}</div>;
}
