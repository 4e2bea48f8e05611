import { SIGNING_SECRET_MAX_CHARS, SIGNING_SECRET_MIN_CHARS } from '../../domain/formats/github-body.js';
import { Card, confirmAttributes, Field, PostForm } from '../views/components.js';
import { Csrf } from '../views/layout.js';

/**
 * The channel's GitHub signing secret (issue 14), for owners and admins: set,
 * replace or clear it. The page only ever says whether one is set: the secret
 * is never rendered back, not even into the field after a refused attempt.
 */
export function SigningSecretSection(props: { channelId: string; channelName: string; set: boolean; csrf: string; error?: string }) {
  return (
    <Card id="signing-title" title="GitHub signing secret">
      <p>
        Signing secret: <strong id="signing-state">{props.set ? 'set' : 'not set'}</strong>
      </p>
      <p class="muted">
        {props.set
          ? 'Deliveries to this channel’s /github path must carry a valid X-Hub-Signature-256; unsigned or wrongly signed ones are refused with 401.'
          : 'With a secret, deliveries to this channel’s /github path must be signed with it (the “Secret” field of the GitHub webhook).'}
      </p>
      <PostForm
        action={`/channels/${props.channelId}/signing-secret`}
        csrf={props.csrf}
        class="inline-form"
        submit={props.set ? 'Replace signing secret' : 'Set signing secret'}
      >
        <Field
          name="signing_secret"
          label={props.set ? 'New signing secret' : 'Signing secret'}
          type="password"
          autocomplete="new-password"
          hint={`${SIGNING_SECRET_MIN_CHARS} to ${SIGNING_SECRET_MAX_CHARS} characters; paste the same value into GitHub.`}
          error={props.error}
          maxlength={SIGNING_SECRET_MAX_CHARS}
          required
        />
      </PostForm>
      {props.set ? (
        <form
          method="post"
          action={`/channels/${props.channelId}/signing-secret/clear`}
          {...confirmAttributes({
            question: `Remove the signing secret of “${props.channelName}”?`,
            detail: 'GitHub deliveries to this channel are then accepted unsigned.',
            action: 'Remove signing secret',
          })}
        >
          <Csrf token={props.csrf} />
          <button type="submit" class="button danger">
            Remove signing secret
          </button>
          <p class="hint">GitHub deliveries are then accepted unsigned.</p>
        </form>
      ) : null}
    </Card>
  );
}
