// The default TLS trust of the CLI process. bin/convoy starts Node with --use-openssl-ca because,
// without it, Node 24 parses its bundled root certificates and NODE_EXTRA_CA_CERTS on a thread as soon
// as node:tls loads, and builds a root store from them even for a connection that names its own CA:
// about 105 M instructions, 0.07 → 0.04 CPU-s for one HTTPS request with a CA on this machine (a third
// of `convoy get`). With the flag nothing is parsed until setDefaultTrust says what to trust:
// - only the API server's CA, for a command that talks to nothing but the API server when the
//   kubeconfig names that CA (that connection trusts only its CA anyway, whatever the default);
// - else Node's own default, its bundled roots and NODE_EXTRA_CA_CERTS, exactly as without the flag
//   (not OpenSSL's store, which the flag would otherwise make the default).
// Commands that open no connection (rules eval, render of a directory) skip both (run.ts).
// A process started without the flag (the sources run directly, tests, the controllers) is left alone.

/** Whether this process runs with the trust bin/convoy sets up. */
export const launchedWithOpensslCa = (): boolean => process.execArgv.includes('--use-openssl-ca');

/** The PEM certificates of a kubeconfig's certificate-authority(-data), one per element. */
export function pemCertificates(bundle: Buffer): string[] {
  return bundle.toString('latin1').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
}

/**
 * Sets the default CAs: only the API server's (a PEM bundle), or with undefined (or a CA that is not
 * PEM) Node's bundled and extra ones.
 */
export function setDefaultTrust(apiServerCa: Buffer | undefined): void {
  if (!launchedWithOpensslCa()) return;
  const tls = process.getBuiltinModule('node:tls');
  const only = apiServerCa === undefined ? [] : pemCertificates(apiServerCa);
  tls.setDefaultCACertificates(
    only.length > 0 ? only : [...tls.getCACertificates('bundled'), ...tls.getCACertificates('extra')],
  );
}
