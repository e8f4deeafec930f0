import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkEntrypointRecord, entrypointRecord } from '../../../services/discovery/dns-record.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('entrypoint DNS record', () => {
  it('prints a record that passes its own checks', () => {
    const line = entrypointRecord('example.com');
    expect(line).toBe(
      '_index._agents.example.com. 3600 IN SVCB 1 example.com. alpn="h2,http/1.1" port=443 mandatory=alpn,port',
    );
    expect(checkEntrypointRecord(line, 'example.com')).toEqual([]);
  });

  const bad: Array<[string, string]> = [
    [
      '_index._agents.example.com. 300 IN SVCB 1 example.com. alpn="h2,http/1.1" port=443 mandatory=alpn,port',
      'TTL must be 3600',
    ],
    [
      '_index._agents.example.com. 3600 IN SVCB 1 . alpn="h2,http/1.1" port=443 mandatory=alpn,port',
      'TargetName must be present',
    ],
    [
      '_index._agents.example.com. 3600 IN SVCB 1 _svc.example.com. alpn="h2,http/1.1" port=443 mandatory=alpn,port',
      'TargetName must contain no underscores',
    ],
    [
      '_index._agents.example.com. 3600 IN SVCB 1 example.com. alpn="h2,http/1.1,mcp" port=443 mandatory=alpn,port',
      'alpn must not advertise mcp or a2a: neither server runs here',
    ],
    [
      '_index._agents.example.com. 3600 IN SVCB 1 example.com. alpn="a2a" port=443 mandatory=alpn,port',
      'alpn must not advertise mcp or a2a: neither server runs here',
    ],
    [
      '_index._agents.example.com. 3600 IN SVCB 1 example.com. alpn="h2,http/1.1" port=8443 mandatory=alpn,port',
      'port must be 443',
    ],
    [
      '_index._agents.example.com. 3600 IN SVCB 1 example.com. alpn="h2,http/1.1" port=443',
      'mandatory must be alpn,port',
    ],
    ['_index._agents.example.com. 3600 IN SVCB 0 example.com.', 'SvcPriority must be 1 (ServiceMode)'],
  ];
  it.each(bad)('flags %s', (line, problem) => {
    expect(checkEntrypointRecord(line, 'example.com')).toContain(problem);
  });

  it('the command exits 1 on a bad line and 0 on a good one', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dns-record.ts', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    expect(run('example.com').stdout.trim()).toBe(entrypointRecord('example.com'));
    expect(run('example.com', '--check', bad[3][0]).status).toBe(1);
    expect(run('example.com', '--check', entrypointRecord('example.com')).status).toBe(0);
  });
});
