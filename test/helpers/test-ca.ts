import { buildCertificate, encodeName, selfSigner, type CertificateSpec, type Signer } from '../../src/auth/pki/certificate-builder.ts';
import { Oid } from '../../src/auth/pki/certificate-info.ts';
import { generateKeyPair, keyIdentifier, privateKeyPem } from '../../src/auth/pki/keys.ts';

export interface TestCa {
  readonly certPem: string;
  /** Issues a leaf signed by this CA (valid for an hour) and returns it with its key. */
  issue(leaf: { commonName: string; dnsNames?: string[]; ipAddresses?: string[]; usage: 'server' | 'client' }): Promise<{ certPem: string; keyPem: string }>;
}

/** A CA made with the project's own PKI code, for tests that need certificates of their own. */
export async function makeTestCa(commonName: string): Promise<TestCa> {
  const { privateKey, publicKey } = await generateKeyPair();
  const now = Date.now();
  const spec: CertificateSpec = {
    subject: [{ oid: Oid.commonName, value: commonName }],
    publicKey,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 3_600_000),
    isCa: true,
    keyUsage: ['digitalSignature', 'keyCertSign', 'cRLSign'],
  };
  const certPem = buildCertificate(spec, selfSigner(spec, privateKey));
  const signer: Signer = { rawName: encodeName(spec.subject), keyId: keyIdentifier(publicKey), privateKey };
  return {
    certPem,
    issue: async (leaf) => {
      const pair = await generateKeyPair();
      const cert = buildCertificate(
        {
          subject: [{ oid: Oid.commonName, value: leaf.commonName }],
          publicKey: pair.publicKey,
          notBefore: new Date(now - 60_000),
          notAfter: new Date(now + 3_600_000),
          keyUsage: ['digitalSignature'],
          extKeyUsage: [leaf.usage === 'server' ? Oid.serverAuth : Oid.clientAuth],
          dnsNames: leaf.dnsNames,
          ipAddresses: leaf.ipAddresses,
        },
        signer,
      );
      return { certPem: cert, keyPem: privateKeyPem(pair.privateKey) };
    },
  };
}
