/** The entrypoint DNS record of the spec: SVCB (ServiceMode) at `_index._agents.<domain>`. */
export function entrypointRecord(domain: string): string {
  const apex = domain.replace(/\.$/, '');
  return `_index._agents.${apex}. 3600 IN SVCB 1 ${apex}. alpn="h2,http/1.1" port=443 mandatory=alpn,port`;
}

/** Every rule of the spec the zone-file line breaks (empty when it follows them all). */
export function checkEntrypointRecord(line: string, domain: string): string[] {
  const apex = domain.replace(/\.$/, '').toLowerCase();
  const problems: string[] = [];
  const tokens = line.trim().split(/\s+/);
  const [owner, ttl, klass, type, priority, target, ...params] = tokens;
  if (!owner || owner.replace(/\.$/, '').toLowerCase() !== `_index._agents.${apex}`)
    problems.push(`owner must be _index._agents.${apex}.`);
  if (ttl !== '3600') problems.push('TTL must be 3600');
  if (klass?.toUpperCase() !== 'IN') problems.push('class must be IN');
  if (type?.toUpperCase() !== 'SVCB') problems.push('type must be SVCB');
  if (priority !== '1') problems.push('SvcPriority must be 1 (ServiceMode)');
  if (!target || target === '.') problems.push('TargetName must be present');
  else {
    if (target.includes('_')) problems.push('TargetName must contain no underscores');
    if (target.replace(/\.$/, '').toLowerCase() !== apex) problems.push(`TargetName must be the apex host ${apex}.`);
  }
  const kv = new Map<string, string>();
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) kv.set(p.toLowerCase(), '');
    else kv.set(p.slice(0, eq).toLowerCase(), p.slice(eq + 1).replace(/^"|"$/g, ''));
  }
  const alpn = (kv.get('alpn') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (alpn.includes('mcp') || alpn.includes('a2a'))
    problems.push('alpn must not advertise mcp or a2a: neither server runs here');
  if (alpn.join(',') !== 'h2,http/1.1') problems.push('alpn must be exactly h2,http/1.1');
  if (kv.get('port') !== '443') problems.push('port must be 443');
  const mandatory = (kv.get('mandatory') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
    .sort();
  if (mandatory.join(',') !== 'alpn,port') problems.push('mandatory must be alpn,port');
  return problems;
}
