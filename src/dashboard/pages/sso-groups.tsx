import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ROLES } from '../../domain/accounts.js';
import type { MappingView } from '../../domain/auth/sso/single-sign-on.js';
import type { DashEnv } from '../http/env.js';
import { CHANNEL_FIELD, SSO_GROUPS_PATH } from '../routes/sso-groups.js';
import { Card, DataTable, Field, Notice, PostForm, RowAction, SelectField } from '../views/components.js';
import { page } from '../views/render.js';

/** A refused form, shown again with what was typed and ticked and each error next to its field. */
export interface SsoGroupsForm {
  values: Record<string, string>;
  picked: string[];
  errors: Record<string, string | undefined>;
}

type Channel = MappingView['channels'][number];

/**
 * Single sign-on groups (owners only, linked from Members): the mappings with their channels and
 * how many members each one manages, a form to map a group, and a remove button per mapping.
 */
export function ssoGroupsPage(
  c: Context<DashEnv>,
  o: { mappings: MappingView[]; channels: Channel[]; configured: boolean; form?: SsoGroupsForm },
  status: ContentfulStatusCode = 200,
) {
  const csrf = c.get('csrfToken');
  const e = o.form?.errors ?? {};
  return page(
    c,
    'Single sign-on groups',
    'members',
    <>
      <p class="muted">
        <a href="/members">Members</a> / Single sign-on groups
      </p>
      <h1>Single sign-on groups</h1>
      <p>
        Each group your identity provider lists for a person gives them its role in this workspace and access to its private channels, from their next
        sign-in. Taking someone out of a group takes that away at their next sign-in. Memberships and channel access given by hand are left alone.
      </p>
      {o.configured ? null : (
        <Notice kind="warn">Single sign-on is not turned on for this server: these mappings apply once the operator sets it up.</Notice>
      )}
      {o.mappings.length === 0 ? (
        <p class="muted">No group is mapped yet. Map the first one below.</p>
      ) : (
        <DataTable columns={['Group', 'Role', 'Channels', 'Members']} actions caption="Mapped groups">
          {o.mappings.map((m) => (
            <tr>
              <th scope="row">
                {m.group}
              </th>
              <td data-label="Role">{m.role}</td>
              <td data-label="Channels">
                {m.channels.length === 0 ? <span class="muted">none</span> : m.channels.map((ch) => `#${ch.slug}`).join(', ')}
              </td>
              <td data-label="Members">{m.members}</td>
              <RowAction
                action={`${SSO_GROUPS_PATH}/unmap`}
                csrf={csrf}
                label={`Remove the mapping of group ${m.group}`}
                confirm={{
                  question: `Remove the mapping of group “${m.group}”?`,
                  detail: 'The memberships and channel access it gave go at each member’s next sign-in.',
                  action: 'Remove mapping',
                }}
                hidden={{ group: m.group }}
              >
                Remove
              </RowAction>
            </tr>
          ))}
        </DataTable>
      )}
      <Card id="map-group-title" title="Map a group">
        <PostForm action={SSO_GROUPS_PATH} csrf={csrf} class="stack" button="primary" submit="Map group">
          <div class="grid-form">
            <Field
              name="group"
              label="Group"
              value={o.form?.values.group}
              error={e.group}
              hint="As the identity provider sends it. Mapping a group listed above replaces its role and channels."
              maxlength={200}
              required
            />
            <SelectField name="role" label="Role" options={ROLES.map((r) => ({ value: r, label: r, selected: r === (o.form?.values.role ?? 'member') }))} error={e.role} />
          </div>
          <ChannelChoice channels={o.channels} picked={new Set(o.form?.picked ?? [])} error={e.channels} />
        </PostForm>
      </Card>
    </>,
    status,
  );
}

/** The private channels a mapping may open, as checkboxes, with the error under the group of them. */
function ChannelChoice(props: { channels: Channel[]; picked: Set<string>; error?: string }) {
  return (
    <fieldset class="keep-members" aria-describedby={props.error ? 'channels-error' : 'channels-hint'}>
      <legend>Private channels (optional)</legend>
      {props.channels.length === 0 ? (
        <p class="hint" id="channels-hint">
          This workspace has no private channels. Public channels are open to every member already.
        </p>
      ) : (
        <>
          {props.channels.map((ch) => (
            <div class="field checkbox">
              <input type="checkbox" id={`ch-${ch.id}`} name={`${CHANNEL_FIELD}${ch.id}`} checked={props.picked.has(ch.id)} />
              <label for={`ch-${ch.id}`}>
                #{ch.slug} <span class="muted">{ch.name}</span>
              </label>
            </div>
          ))}
          <p class="hint" id="channels-hint">
            Members of the group get access to the ticked channels. Public channels are open to every member already.
          </p>
        </>
      )}
      {props.error ? (
        <p class="error" id="channels-error">
          {props.error}
        </p>
      ) : null}
    </fieldset>
  );
}
