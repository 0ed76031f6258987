/**
 * The temporalio/ui image renders its config-template.yaml with dockerize (Go text/template over the
 * environment) into config/docker.yaml before it starts ui-server. stack:cluster does the same with this
 * renderer, which knows the part of the template language those templates use:
 *   {{ .Env.X }}   {{ default .Env.X "v" }}   {{ if .Env.X }} … {{ else }} … {{ end }}
 *   {{ range $v := (split .Env.X ",") }} … {{ . }} … {{ end }}   and the {{- / -}} whitespace trims.
 * Anything else is an error, never silently left in the output.
 */
type Token = { text: string } | { action: string };

function tokenize(template: string): Token[] {
  const tokens: Token[] = [];
  const re = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;
  let last = 0;
  let trimNext = false;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    let text = template.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (m[1]) text = text.replace(/\s+$/, '');
    tokens.push({ text });
    tokens.push({ action: m[2] });
    trimNext = m[3] === '-';
    last = re.lastIndex;
  }
  let rest = template.slice(last);
  if (trimNext) rest = rest.replace(/^\s+/, '');
  tokens.push({ text: rest });
  return tokens;
}

export function renderDockerizeTemplate(template: string, env: Record<string, string | undefined>): string {
  const tokens = tokenize(template);
  let i = 0;
  const value = (expr: string, dot: string | undefined): string => {
    let m = expr.match(/^\.Env\.(\w+)$/);
    if (m) return env[m[1]] ?? '';
    m = expr.match(/^default \.Env\.(\w+) "([^"]*)"$/);
    if (m) return env[m[1]] || m[2];
    if (expr === '.' && dot !== undefined) return dot;
    throw new Error(`template action not supported: {{ ${expr} }}`);
  };
  /** Render until `else`/`end` (returned as the stop word) or the end of input. */
  const block = (dot: string | undefined, emit: boolean): { out: string; stop?: string } => {
    let out = '';
    while (i < tokens.length) {
      const t = tokens[i++];
      if ('text' in t) {
        if (emit) out += t.text;
        continue;
      }
      const a = t.action;
      if (a === 'end' || a === 'else') return { out, stop: a };
      let m = a.match(/^if \.Env\.(\w+)$/);
      if (m) {
        const cond = Boolean(env[m[1]]);
        const then = block(dot, emit && cond);
        let otherwise = '';
        if (then.stop === 'else') otherwise = block(dot, emit && !cond).out;
        out += cond ? then.out : otherwise;
        continue;
      }
      m = a.match(/^range \$\w+ := \(split \.Env\.(\w+) "([^"]*)"\)$/);
      if (m) {
        const items = env[m[1]] ? env[m[1]]!.split(m[2]) : [];
        const start = i;
        if (items.length === 0) block(dot, false);
        for (const item of items) {
          i = start;
          out += block(item, emit).out;
        }
        continue;
      }
      if (emit) out += value(a, dot);
    }
    return { out };
  };
  const { out, stop } = block(undefined, true);
  if (stop) throw new Error(`template: unexpected {{ ${stop} }}`);
  return out;
}
