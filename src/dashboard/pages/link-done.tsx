import type { Context } from 'hono';
import type { Flash } from '../http/flash.js';
import { publicPage } from '../views/render.js';

/**
 * The page an e-mail's button lands on after its POST (Post/Redirect/Get, no session needed):
 * what was done, once. Reloaded or opened from a copied URL it says only that there is nothing
 * more to do: the button acted once and this GET never acts.
 */
export function linkDonePage(c: Context, done: Flash['done'], otherwise: { title: string; text: string; link: { href: string; label: string } }) {
  const shown = done ?? { heading: otherwise.title, text: otherwise.text, link: otherwise.link };
  return publicPage(
    c,
    shown.heading,
    <section class="card narrow">
      <h1>{shown.heading}</h1>
      {shown.text ? <p>{shown.text}</p> : null}
      {shown.link ? (
        <p>
          <a href={shown.link.href}>{shown.link.label}</a>
        </p>
      ) : null}
    </section>,
  );
}
