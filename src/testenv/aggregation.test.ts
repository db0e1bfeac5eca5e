// The objects registerApiService creates: they must match what the aggregator needs to reach
// a server on loopback without kube-proxy (ExternalName, the server's port, its CA).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { apiServiceObjects } from './aggregation.ts';

describe('apiServiceObjects', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const convoy = apiServiceObjects({ port: 40123, caPem: PEM });

  it("defaults to convoy's HTTP API as deploy/api registers it", () => {
    const deployed = (file: string) =>
      parse(readFileSync(new URL(`../../deploy/api/${file}`, import.meta.url), 'utf8')) as {
        metadata: { name: string; namespace?: string };
        spec: Record<string, unknown>;
      };
    const apiService = deployed('apiservice.yaml');
    const service = deployed('service.yaml');
    const { caBundle: _ca, service: svc, ...rest } = apiService.spec;
    assert.equal(convoy.apiService.metadata?.name, apiService.metadata.name);
    assert.deepEqual(
      { ...convoy.apiService.spec, caBundle: undefined, service: undefined },
      { ...rest, caBundle: undefined, service: undefined },
    );
    assert.deepEqual(convoy.apiService.spec?.service, { ...(svc as object), port: 40123 });
    assert.deepEqual(convoy.service.metadata, {
      name: service.metadata.name,
      namespace: service.metadata.namespace,
    });
    assert.equal(convoy.namespace.metadata?.name, service.metadata.namespace);
  });

  it('routes through an ExternalName Service to localhost, with no ports or selector', () => {
    assert.deepEqual(convoy.service.spec, { type: 'ExternalName', externalName: 'localhost' });
  });

  it('trusts exactly the given PEM, base64-encoded', () => {
    assert.equal(Buffer.from(convoy.apiService.spec?.caBundle ?? '', 'base64').toString(), PEM);
    assert.equal(convoy.apiService.spec?.insecureSkipTLSVerify, undefined);
  });

  it('names everything after the options when given', () => {
    const o = apiServiceObjects({
      port: 8443,
      caPem: PEM,
      group: 'metrics.example.io',
      version: 'v1beta1',
      namespace: 'other',
      serviceName: 'metrics',
      host: '127.0.0.1',
    });
    assert.equal(o.apiService.metadata?.name, 'v1beta1.metrics.example.io');
    assert.deepEqual(o.apiService.spec?.service, { namespace: 'other', name: 'metrics', port: 8443 });
    assert.equal(o.service.spec?.externalName, '127.0.0.1');
    assert.equal(o.namespace.metadata?.name, 'other');
  });
});
