import { serviceAccounts } from '../../src/kinds/service-account.ts';
import { runKindSuite } from './kind-suite.ts';

// ServiceAccount has metadata rules only (upstream's ValidateServiceAccount adds none to them in 1.34).
runKindSuite({
  kind: serviceAccounts,
  valid: [
    { name: 'bare', object: {} },
    { name: 'with secrets and pull secrets', object: { secrets: [{ name: 's' }], imagePullSecrets: [{ name: 'p' }], automountServiceAccountToken: false } },
  ],
  invalid: [
    {
      name: 'a name that is no DNS subdomain',
      object: { metadata: { name: 'Bad_Name' } },
      errors: [
        {
          field: 'metadata.name',
          message: `Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        },
      ],
    },
  ],
  columns: [{ name: 'Secrets counts the listed secrets', object: { secrets: [{ name: 'a' }, { name: 'b' }] }, cells: [2] }],
});
