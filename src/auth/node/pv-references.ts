/**
 * The secrets a PersistentVolume names for the kubelet (upstream's VisitPVSecretNames with
 * kubeletVisible): the node that mounts the bound claim may read them. Controller-side CSI secrets
 * (controllerPublish, controllerExpand) are the attacher's and resizer's, never the node's.
 */
type Obj = Record<string, any>;

export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/** A secretRef whose namespace defaults to the claim's, as volumes persisted before it had one. */
function refOrClaimNamespace(ref: Obj | undefined, claimNamespace: string): SecretRef | undefined {
  if (!ref) return undefined;
  return { namespace: ref.namespace || claimNamespace, name: String(ref.name ?? '') };
}

function exactRef(ref: Obj | undefined): SecretRef | undefined {
  return ref ? { namespace: String(ref.namespace ?? ''), name: String(ref.name ?? '') } : undefined;
}

/** The kubelet-visible secrets of the volume's source (only the first source present counts). */
export function pvKubeletSecrets(pv: Obj): SecretRef[] {
  const spec: Obj = pv.spec ?? {};
  const claimNamespace = String(spec.claimRef?.namespace ?? '');
  let refs: (SecretRef | undefined)[] = [];
  if (spec.azureFile) {
    refs = [{ namespace: spec.azureFile.secretNamespace || claimNamespace, name: String(spec.azureFile.secretName ?? '') }];
  } else if (spec.cephfs) {
    refs = [refOrClaimNamespace(spec.cephfs.secretRef, claimNamespace)];
  } else if (spec.cinder) {
    refs = [exactRef(spec.cinder.secretRef)];
  } else if (spec.flexVolume) {
    refs = [refOrClaimNamespace(spec.flexVolume.secretRef, claimNamespace)];
  } else if (spec.rbd) {
    refs = [refOrClaimNamespace(spec.rbd.secretRef, claimNamespace)];
  } else if (spec.scaleIO) {
    refs = [refOrClaimNamespace(spec.scaleIO.secretRef, claimNamespace)];
  } else if (spec.iscsi) {
    refs = [refOrClaimNamespace(spec.iscsi.secretRef, claimNamespace)];
  } else if (spec.storageos) {
    refs = [exactRef(spec.storageos.secretRef)];
  } else if (spec.csi) {
    refs = [exactRef(spec.csi.nodePublishSecretRef), exactRef(spec.csi.nodeStageSecretRef), exactRef(spec.csi.nodeExpandSecretRef)];
  }
  return refs.filter((r): r is SecretRef => r !== undefined && r.name !== '');
}
