import { describe, expect, it } from 'vitest';
import { mapAlertmanager } from '../../src/domain/formats/alertmanager.js';
import { mapGrafana } from '../../src/domain/formats/grafana.js';
import { AppError } from '../../src/domain/errors.js';
import { expectWebhookValid, fixture } from './fixture.js';

describe('Alertmanager webhook (version 4)', () => {
  it('maps the firing example: severity level, alertname title, one line per alert, common labels, generatorURL', () => {
    const c = mapAlertmanager(fixture('alertmanager', 'firing'));
    expect(c.kind).toBe('group');
    expect(c.groupKey).toBe('alertmanager:{}:{alertname="HighLatency"}');
    expect(c.status).toBe('firing');
    expect(c.payload).toMatchObject({
      title: 'HighLatency · 2 alerts',
      level: 'warning',
      emoji: '⚠️',
      source: 'Alertmanager',
      message: '• High request latency on web-1\n• p99 latency is above 500ms on web-2',
      fields: [
        { label: 'alertname', value: 'HighLatency', inline: true },
        { label: 'job', value: 'api', inline: true },
        { label: 'severity', value: 'warning', inline: true },
      ],
      linkUrl: 'http://prometheus.example.com/graph?g0.expr=latency+%3E+0.5',
    });
    expect(c.attachmentUrls).toEqual([]);
    expectWebhookValid(c.payload);
  });

  it('resolved: success, same group key, a different state fingerprint', () => {
    const firing = mapAlertmanager(fixture('alertmanager', 'firing'));
    const resolved = mapAlertmanager(fixture('alertmanager', 'resolved'));
    expect(resolved.status).toBe('resolved');
    expect(resolved.payload.level).toBe('success');
    expect(resolved.payload.emoji).toBe('✅');
    expect(resolved.groupKey).toBe(firing.groupKey);
    expect(resolved.stateFingerprint).not.toBe(firing.stateFingerprint);
  });

  it("a repeat of an unchanged group has the same fingerprint, whatever its timestamps and order", () => {
    const a = fixture('alertmanager', 'firing');
    const b = structuredClone(a) as { alerts: { startsAt: string }[] };
    b.alerts.reverse();
    b.alerts[0]!.startsAt = '2024-01-02T00:00:00Z';
    expect(mapAlertmanager(b).stateFingerprint).toBe(mapAlertmanager(a).stateFingerprint);
    const c = structuredClone(a) as { alerts: { status: string }[] };
    c.alerts[1]!.status = 'resolved';
    const changed = mapAlertmanager(c);
    expect(changed.stateFingerprint).not.toBe(mapAlertmanager(a).stateFingerprint);
    expect(changed.payload.message).toBe('• High request latency on web-1\n• p99 latency is above 500ms on web-2 (resolved)');
  });

  it.each([
    ['critical', 'error', '🚨'],
    ['ERROR', 'error', '🚨'],
    ['page', 'error', '🚨'],
    ['warning', 'warning', '⚠️'],
    ['info', 'info', undefined],
    ['none', 'info', undefined],
    [undefined, 'error', '🚨'],
    ['whatever', 'error', '🚨'],
  ])('severity %s → %s while firing, emoji %s (an info group keeps the card\'s ℹ️)', (severity, level, emoji) => {
    const body = { groupKey: 'k', status: 'firing', commonLabels: severity ? { severity } : {}, alerts: [{ labels: { alertname: 'A' } }] };
    expect(mapAlertmanager(body).payload.level).toBe(level);
    expect(mapAlertmanager(body).payload.emoji).toBe(emoji);
  });

  it('title from commonAnnotations.summary; link falls back to externalURL; truncated alerts are counted', () => {
    const c = mapAlertmanager({
      groupKey: 'k',
      status: 'firing',
      truncatedAlerts: 3,
      commonAnnotations: { summary: 'Disk almost full' },
      externalURL: 'http://am.test:9093',
      alerts: [{ labels: { alertname: 'Disk', instance: 'db-1' } }],
    });
    expect(c.payload.title).toBe('Disk almost full');
    expect(c.payload.linkUrl).toBe('http://am.test:9093');
    expect(c.payload.message).toBe('• Disk {instance=db-1}\n… and 3 more alerts the sender left out');
  });

  it('survives __proto__ and constructor labels without polluting anything', () => {
    const body: unknown = JSON.parse(
      '{"groupKey":"k","status":"firing","commonLabels":{"__proto__":"x","constructor":"y","severity":"warning"},"alerts":[{"labels":{"__proto__":{"a":1},"alertname":"P"},"annotations":{"__proto__":"s"}}]}',
    );
    const c = mapAlertmanager(body);
    expect(c.payload.level).toBe('warning');
    expect(c.payload.fields).toEqual([
      { label: '__proto__', value: 'x', inline: true },
      { label: 'constructor', value: 'y', inline: true },
      { label: 'severity', value: 'warning', inline: true },
    ]);
    expect(c.payload.title).toBe('P · 1 alert');
    expect(({} as Record<string, unknown>).a).toBeUndefined();
    expectWebhookValid(c.payload);
  });

  it('hashes a group key that would not fit, and refuses a body without key or alerts', () => {
    const c = mapAlertmanager({ groupKey: 'x'.repeat(500), alerts: [{ labels: { alertname: 'A' } }] });
    expect(c.groupKey).toMatch(/^alertmanager:sha256:[0-9a-f]{64}$/);
    for (const body of [{}, { alerts: [] }, { groupKey: 'k', alerts: [] }, [], 'x']) {
      expect(() => mapAlertmanager(body)).toThrow(AppError);
    }
  });

  it('caps common labels at 25 fields and cuts long values', () => {
    const commonLabels = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`l${i}`, 'v'.repeat(2000)]));
    const c = mapAlertmanager({ groupKey: 'k', commonLabels, alerts: [{ labels: { alertname: 'A' } }] });
    expect(c.payload.fields).toHaveLength(25);
    expect(c.payload.fields![0]!.value).toHaveLength(1000);
    expectWebhookValid(c.payload);
  });
});

describe('Grafana unified-alerting webhook', () => {
  it("maps Grafana's example: its title, values and links per alert, imageURL as attachment", () => {
    const c = mapGrafana(fixture('grafana', 'firing'));
    expect(c.groupKey).toBe('grafana:{}:{}');
    expect(c.payload).toMatchObject({
      title: '[FIRING:2] (blue)',
      level: 'error', // no severity label
      source: 'Grafana',
      fields: [{ label: 'team', value: 'blue', inline: true }],
      linkUrl: 'https://play.grafana.org/alerting/1afz29v7z/edit',
    });
    expect(c.payload.message).toBe(
      [
        '• This alert was triggered for zone us-1 — B=44.23943737541908, C=1',
        '  Silence: https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT2%2Cteam%3Dblue%2Czone%3Dus-1',
        '• This alert was triggered for zone eu-1 — B=13.79',
        '  Dashboard: https://play.grafana.org/d/dashboard-uid · Panel: https://play.grafana.org/d/dashboard-uid?viewPanel=3 · Silence: https://play.grafana.org/alerting/silence/new?alertmanager=grafana&matchers=alertname%3DT1%2Cteam%3Dblue%2Czone%3Deu-1',
      ].join('\n'),
    );
    expect(c.attachmentUrls).toEqual(['https://play.grafana.org/render/panel.png']);
    expectWebhookValid(c.payload);
  });

  it('the same group key from Alertmanager and Grafana never meets', () => {
    const body = { groupKey: '{}:{}', alerts: [{ labels: { alertname: 'A' } }] };
    expect(mapGrafana(body).groupKey).not.toBe(mapAlertmanager(body).groupKey);
  });
});

describe('alert lines', () => {
  it('an empty summary falls back to the description, then to the name and labels', () => {
    const c = mapAlertmanager({
      groupKey: 'k',
      alerts: [
        { annotations: { summary: ' ', description: 'from description' } },
        { labels: { zone: 'eu' } },
      ],
    });
    expect(c.payload.message).toBe('• from description\n• alert {zone=eu}');
  });
});
