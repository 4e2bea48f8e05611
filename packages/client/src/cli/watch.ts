import type { AnyAlert } from '../types.js';
import { apiFrom, parse, UsageError, write, type CliIo } from './context.js';
import { alertLine, channelNames, levelOf, useColour } from './format.js';

const OPTIONS = { channel: { type: 'string', multiple: true } } as const;
/** How many alerts' last shown state is remembered, so an update prints only when it matters. */
const REMEMBERED = 1000;

/**
 * `watch [--channel C]…`: the live stream, one line per new alert, and another when an alert's
 * level, status or run state changes (a run passing or failing). Resumes after drops; Ctrl-C ends it (0).
 * --json prints every event as one JSON line.
 */
export async function watch(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected "${positionals[0]}": channels are given with --channel`);
  const api = apiFrom(values, io.env);
  const names = channelNames(await api.channels());
  const colour = useColour(io.stdout, io.env);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  const shown = new Map<string, string>();
  let announced = false;
  try {
    for await (const e of api.stream({
      channels: values.channel,
      signal: controller.signal,
      onOpen: () => {
        if (!announced) io.stderr.write(`alertbridge: watching ${values.channel?.map((c) => `#${c}`).join(', ') ?? 'every channel'} (Ctrl-C to stop)\n`);
        announced = true;
      },
    })) {
      if (values.json) {
        write(io.stdout, JSON.stringify(e));
        continue;
      }
      if (e.event === 'resync') write(io.stderr, `alertbridge: the stream could not resume (${e.data.reason}): some events were missed`);
      if (e.event !== 'alert.created' && e.event !== 'alert.updated') continue;
      const state = stateOf(e.data);
      if (shown.get(e.data.id) === state) continue;
      const isNew = e.event === 'alert.created' || !shown.has(e.data.id);
      remember(shown, e.data.id, state);
      if (!names.has(e.data.channelId)) for (const c of await api.channels()) names.set(c.id, c.slug);
      write(io.stdout, alertLine(e.data, names.get(e.data.channelId) ?? e.data.channelId, colour, isNew || !('updatedAt' in e.data) ? e.data.createdAt : e.data.updatedAt));
    }
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
  return 0;
}

function stateOf(a: AnyAlert): string {
  return [levelOf(a), a.status, 'workflow' in a ? (a.workflow?.state ?? '') : ''].join('|');
}

function remember(shown: Map<string, string>, id: string, state: string): void {
  shown.delete(id);
  shown.set(id, state);
  if (shown.size > REMEMBERED) shown.delete(shown.keys().next().value!);
}
