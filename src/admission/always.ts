import { forbidden } from '../api/errors.ts';
import type { AdmissionAttributes } from './attributes.ts';
import { handlesOperations, type AdmissionPlugin } from './plugin.ts';

/** AlwaysAdmit: admits everything (deprecated upstream; kept so that its name is accepted). */
export const alwaysAdmit: AdmissionPlugin = {
  name: 'AlwaysAdmit',
  handles: handlesOperations('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
};

function deny(a: AdmissionAttributes): never {
  throw forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, 'admission control is denying all modifications');
}

/** AlwaysDeny: refuses every write (for tests of admission itself; deprecated upstream). */
export const alwaysDeny: AdmissionPlugin = {
  name: 'AlwaysDeny',
  handles: handlesOperations('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
  admit: deny,
  validate: deny,
};
