import type { HeartbeatCheck } from '../../domain/heartbeats/ports.js';
import { checkStatus, type CheckStatus } from '../../domain/heartbeats/schedule.js';
import { Card } from '../views/components.js';

const STATE_LABEL: Record<CheckStatus, string> = { new: 'new', up: 'up', late: 'late', down: 'down', paused: 'paused' };

/** Channel settings: the channel's heartbeat checks, each linked to its page (docs/heartbeats.md). */
export function ChannelHeartbeatsSection(props: { checks: HeartbeatCheck[]; now: number; chatConnected: boolean }) {
  return (
    <Card id="heartbeats-title" title="Heartbeat checks">
      {props.chatConnected ? (
        <p class="muted">This channel mirrors a Discord channel, so it takes no heartbeat checks.</p>
      ) : props.checks.length === 0 ? (
        <p class="muted">
          No checks alert here yet. <a href="/heartbeats#new-heartbeat">Create one</a> to be told when a cron job or a worker stops pinging.
        </p>
      ) : (
        <ul>
          {props.checks.map((c) => (
            <li>
              <a href={`/heartbeats/${c.id}`}>{c.name}</a> ({STATE_LABEL[checkStatus(c, props.now)]})
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
