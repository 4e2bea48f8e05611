/**
 * Trims our own stylesheets and scripts as they are loaded (assets.ts): the "why" comments and the
 * indentation are for people reading src/, not for every browser's first load (a third of the bytes
 * after brotli). Deliberately small and conservative, for files written in this repository's style:
 * no renaming, no reordering, newlines kept (so automatic semicolons stay where they were).
 */

/** CSS: comments gone, whitespace runs one space, none around `{ } ; ,`. */
export function minifyCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{};,])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();
}

/**
 * JS: whole-line `//` comments, `/* … *\/` blocks that begin a line, blank lines and indentation go.
 * A file with a template literal is left as it is: a line inside one is text, not code.
 */
export function minifyJs(js: string): string {
  if (js.includes('`')) return js;
  const out: string[] = [];
  let inBlock = false;
  for (const raw of js.split('\n')) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes('*/')) {
        inBlock = false;
        const rest = line.slice(line.indexOf('*/') + 2).trim();
        if (rest) out.push(rest);
      }
      continue;
    }
    if (line.startsWith('/*')) {
      const end = line.indexOf('*/', 2);
      if (end === -1) inBlock = true;
      else if (line.slice(end + 2).trim()) out.push(line.slice(end + 2).trim());
      continue;
    }
    if (line === '' || line.startsWith('//')) continue;
    out.push(line);
  }
  return out.join('\n');
}
