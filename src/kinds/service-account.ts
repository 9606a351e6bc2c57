import { defineKind } from '../registry/kind.ts';

export const serviceAccounts = defineKind({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  shortNames: ['sa'],
  schemaMessage: 'k8s.io.api.core.v1.ServiceAccount',
  tableColumns: [
    { name: 'Secrets', type: 'string', description: 'Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount.', cell: (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0) },
  ],
});
