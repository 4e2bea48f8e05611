import { describe, expect, it } from 'vitest';
import { levelFromColour, levelFromSlackColour } from '../../src/domain/formats/colour-level.js';
import { mrkdwnToText } from '../../src/domain/formats/mrkdwn.js';
import { cut } from '../../src/domain/formats/text.js';
import { lentries } from '../../src/domain/formats/lenient.js';

describe('colour to level', () => {
  // Colours whose hue is exactly the boundary (no 8-bit rounding), and the nearest one on the other side.
  it.each([
    [0xff0000, 0, 'error'],
    [0xff4f00, 18.6, 'error'],
    [0xff5500, 20, 'warning'],
    [0x3b3c00, 69, 'warning'],
    [0x323c00, 70, 'success'],
    [0x003c31, 169, 'success'],
    [0x003c32, 170, 'info'],
    [0x3c001f, 329, 'info'],
    [0x3c001e, 330, 'error'],
    [0xff0004, 359, 'error'],
  ])('#%s (hue %s°) → %s', (colour, _hue, level) => {
    expect(levelFromColour(colour)).toBe(level);
  });

  it('reads saturation: 0.25 counts, just below is info', () => {
    expect(levelFromColour(0xa06060)).toBe('error'); // saturation 0.252
    expect(levelFromColour(0x9f6060)).toBe('info'); // saturation 0.247
  });

  it('greys, black, white, none and garbage are info', () => {
    for (const c of [0x808080, 0, 0xffffff, undefined, null, -1, 0x1000000, 1.5, 'nope', '#12345']) {
      expect(levelFromColour(c as number | string | undefined)).toBe('info');
    }
  });

  it("takes Slack's names and hex forms", () => {
    expect(levelFromSlackColour('danger')).toBe('error');
    expect(levelFromSlackColour('warning')).toBe('warning');
    expect(levelFromSlackColour('good')).toBe('success');
    expect(levelFromSlackColour('#36a64f')).toBe('success');
    expect(levelFromSlackColour('f00')).toBe('error');
    expect(levelFromSlackColour('#439FE0')).toBe('info');
    expect(levelFromSlackColour('toString')).toBe('info');
  });
});

describe('mrkdwn to plain text', () => {
  it('drops emphasis markers at word edges only', () => {
    expect(mrkdwnToText('*bold* and _it_ and ~gone~')).toBe('bold and it and gone');
    expect(mrkdwnToText('snake_case_name and 2*3*4')).toBe('snake_case_name and 2*3*4');
  });

  it('turns links, mentions and entities into text', () => {
    expect(mrkdwnToText('<https://x.test/a_b_c|the page> <https://y.test>')).toBe('[the page](https://x.test/a_b_c) https://y.test');
    // A label the masked form cannot hold, or a non-web URL, keeps the readable "label (url)".
    expect(mrkdwnToText('<https://x.test|[x] y> <ftp://f.test|files>')).toBe('[x] y (https://x.test) files (ftp://f.test)');
    expect(mrkdwnToText('<!here> <!channel> <@U123|ann> <#C1|ops> <!subteam^S1|@oncall>')).toBe('@here @channel @ann #ops @oncall');
    expect(mrkdwnToText('<!date^1392734382^{date}|Feb 18th>')).toBe('Feb 18th');
    expect(mrkdwnToText('<mailto:a@b.test|Ann>')).toBe('Ann');
    expect(mrkdwnToText('a &lt; b &amp;&amp; c &gt; d')).toBe('a < b && c > d');
  });

  it('turns known shortcodes into emoji and leaves the rest', () => {
    expect(mrkdwnToText(':rocket: :rotating_light: :white_check_mark: :no_such_thing: at 12:30:45')).toBe('🚀 🚨 ✅ :no_such_thing: at 12:30:45');
  });
});

describe('cut', () => {
  it('ends with an ellipsis within the limit and never splits a surrogate pair', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdefg', 6)).toBe('abcde…');
    const s = 'abcd🚀🚀🚀';
    const out = cut(s, 6);
    expect(out.length).toBeLessThanOrEqual(6);
    expect(out).toBe('abcd…');
    expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('prototype-key hostility', () => {
  it('keeps __proto__ and constructor as plain data, never as an object key', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": "c", "a": 1}');
    expect(lentries.parse(parsed)).toEqual([
      ['constructor', 'c'],
      ['a', '1'],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
