import type { PushDevice } from '../../domain/push.js';
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER } from '../../domain/push.js';
import { DataTable, RowAction, TimeCell } from './components.js';
import { asset } from './render.js';

export interface PushSettings {
  publicKey: string;
  devices: PushDevice[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Profile's "Push notifications" section: this browser's switch (push-settings.js
 * drives it; without JavaScript it says so) and every subscribed device with
 * its last success, each removable by a plain form.
 */
export function PushDevicesSection(props: { push: PushSettings; csrf: string }) {
  const { devices, publicKey } = props.push;
  return (
    <section class="card" id="push" aria-labelledby="push-title" data-push-settings data-public-key={publicKey}>
      <h2 id="push-title">Push notifications</h2>
      <p class="hint">
        Alerts reach your devices even with every dashboard tab closed, following the same levels as e-mail (above). At most {MAX_PUSH_SUBSCRIPTIONS_PER_USER}{' '}
        devices.
      </p>
      <p data-push-status role="status">
        Turning push on needs JavaScript.
      </p>
      <p class="row-form">
        <button type="button" class="button primary" data-push-on>
          Turn on for this browser
        </button>
        <button type="button" class="button" data-push-off hidden>
          Turn off for this browser
        </button>
      </p>
      {devices.length === 0 ? (
        <p class="muted">No device gets push notifications yet.</p>
      ) : (
        <DataTable columns={['Device', 'Added', 'Last delivered']} actions caption="Devices that get push notifications">
          {devices.map((d) => (
            <tr>
              <th scope="row">
                {d.device}
                {d.lastError ? <span class="hint"> · last error: {d.lastError}</span> : null}
              </th>
              <TimeCell label="Added" iso={iso(d.createdAt)} />
              <TimeCell label="Last delivered" iso={iso(d.lastSuccessAt)} />
              <RowAction action={`/push/devices/${d.id}/delete`} csrf={props.csrf} label={`Remove ${d.device}, added ${iso(d.createdAt)?.slice(0, 16).replace('T', ' ')}`}>
                Remove
              </RowAction>
            </tr>
          ))}
        </DataTable>
      )}
      <script src={asset('push-settings.js')} defer></script>
    </section>
  );
}
