import { describe, expect, it } from 'vitest';
import { ChannelSyncState } from '../../src/domain/chat/sync-state.js';
import { compareSnowflakes, excerpt, isSnowflake, resolveMentions } from '../../src/domain/chat/text.js';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';

const lookup = {
  user: (id: string) => ({ '111111111111111111': 'Alice A.' })[id],
  role: (id: string) => ({ '222222222222222222': 'oncall' })[id],
  channel: (id: string) => ({ '333333333333333333': 'general' })[id],
};

describe('mention resolution', () => {
  it('resolves users, roles, channels, emoji, commands and timestamps', () => {
    expect(
      resolveMentions(
        '<@111111111111111111> <@!111111111111111111> <@&222222222222222222> <#333333333333333333> <:ok:444444444444444444> <a:spin:444444444444444444> </deploy:555555555555555555> <t:1700000000:R> @everyone @here',
        lookup,
      ),
    ).toBe('@Alice A. @Alice A. @oncall #general :ok: :spin: /deploy 2023-11-14T22:13:20.000Z @everyone @here');
  });

  it('never shows a raw id for unknown objects, and leaves other text alone', () => {
    expect(resolveMentions('<@999999999999999999> <@&999999999999999999> <#999999999999999999>', lookup)).toBe(
      '@unknown-user @deleted-role #deleted-channel',
    );
    expect(resolveMentions('a < b > c <@notanid> <https://x.test>', lookup)).toBe('a < b > c <@notanid> <https://x.test>');
  });
});

describe('reply excerpt', () => {
  it('keeps short text whole and flattens whitespace', () => {
    expect(excerpt('hello\n\n  world')).toBe('hello world');
    expect(excerpt(null)).toBe('');
    expect(excerpt('x'.repeat(100))).toBe('x'.repeat(100));
  });

  it('cuts long text on a word boundary, ellipsis included in the 100 characters', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const e = excerpt(words);
    expect(e.length).toBeLessThanOrEqual(100);
    expect(e.endsWith('…')).toBe(true);
    expect(words.startsWith(e.slice(0, -1) + ' ')).toBe(true);
  });

  it('hard-cuts one giant word without splitting an emoji', () => {
    expect(excerpt('a'.repeat(150))).toBe(`${'a'.repeat(99)}…`);
    const e = excerpt(`${'a'.repeat(98)}😀${'b'.repeat(10)}`);
    expect(e).toBe(`${'a'.repeat(98)}…`);
  });
});

describe('snowflakes', () => {
  it('validates and orders numerically', () => {
    expect(isSnowflake('1329057501282304000')).toBe(true);
    expect(isSnowflake('123')).toBe(false);
    expect(isSnowflake('99999999999999999999')).toBe(false); // > 2^64
    expect(compareSnowflakes('99999999999999999', '100000000000000000')).toBeLessThan(0);
    // Alert ids follow the same order.
    expect(alertIdFromSnowflake('99999999999999999') < alertIdFromSnowflake('100000000000000000')).toBe(true);
  });
});

describe('sync mark bookkeeping', () => {
  const retry = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('live messages move the mark only after a completed pass, in gateway order', () => {
    const st = new ChannelSyncState('100000000000000010');
    const token = st.beginPass();
    const a = st.liveReceived('100000000000000020');
    expect(st.liveSettled(a, true)).toBeNull(); // during the pass: stored, not counted
    expect(st.endPass(token, true, 0, retry)).toBe('100000000000000020');
    st.markWritten('100000000000000020');

    const b = st.liveReceived('100000000000000030');
    const c = st.liveReceived('100000000000000040');
    expect(st.liveSettled(c, true)).toBeNull(); // b is still being written
    expect(st.liveSettled(b, true)).toBe('100000000000000040');
  });

  it('a gap during a pass keeps the stream not live, and asks for another pass', () => {
    const st = new ChannelSyncState(null);
    const token = st.beginPass();
    st.gap();
    expect(st.endPass(token, true, 0, retry)).toBeNull();
    expect(st.isLive).toBe(false);
    expect(st.passRequested).toBe(true);
  });

  it('a failed write makes a gap; a failed pass backs off', () => {
    const st = new ChannelSyncState('100000000000000010', () => 1); // no jitter: the full delay
    st.endPass(st.beginPass(), true, 0, retry);
    const a = st.liveReceived('100000000000000020');
    const b = st.liveReceived('100000000000000030');
    st.liveSettled(a, false);
    expect(st.liveSettled(b, true)).toBeNull();
    expect(st.isLive).toBe(false);
    st.endPass(st.beginPass(), false, 1_000, retry);
    expect(st.retryAt).toBe(1_100);
    st.endPass(st.beginPass(), false, 2_000, retry);
    expect(st.retryAt).toBe(2_200);
    expect(st.endPass(st.beginPass(), true, 3_000, retry)).toBe('100000000000000030');
  });

  it('failed passes back off exponentially up to the cap, with equal jitter, and a completed pass resets it', () => {
    let r = 0;
    const st = new ChannelSyncState('100000000000000010', () => r);
    const fail = () => {
      st.endPass(st.beginPass(), false, 10_000, retry);
      return st.retryAt - 10_000;
    };
    // Half of each delay is fixed, half random: 100 ms doubles to the 1 s cap.
    expect([fail(), fail(), fail(), fail(), fail(), fail()]).toEqual([50, 100, 200, 400, 500, 500]);
    expect(st.failures).toBe(6);
    st.endPass(st.beginPass(), true, 20_000, retry);
    expect([st.failures, st.retryAt]).toEqual([0, 0]);
    r = 1;
    expect([fail(), fail(), fail(), fail(), fail()]).toEqual([100, 200, 400, 800, 1_000]);
  });
});
