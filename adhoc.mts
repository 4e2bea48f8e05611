import fs from 'node:fs';
for (const f of fs.readdirSync('/tmp/dprof')) {
const p = JSON.parse(fs.readFileSync('/tmp/dprof/' + f, 'utf8'));
const byId = new Map(p.nodes.map((n: any) => [n.id, n]));
const c = new Map<string, number>(); let total = 0;
for (const id of p.samples) { const n: any = byId.get(id); if (n.callFrame.functionName === '(idle)') continue; total++; const k = n.callFrame.functionName + ' ' + n.callFrame.url.replace('file:///work/main/', '') + ':' + n.callFrame.lineNumber; c.set(k, (c.get(k) ?? 0) + 1); }
console.log(f, total);
console.log([...c].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(100 * v / total).toFixed(1)}% ${k}`).join('\n'));
}
