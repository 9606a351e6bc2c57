/**
 * The Kubernetes protobuf wire form (`application/vnd.kubernetes.protobuf`) ⇄ the JSON form the
 * server works with, driven by the generated schema. Converters are compiled per message on first
 * use and cached.
 */
export {
  decodeProtobufObject,
  encodeProtobufObject,
  protobufListParts,
  supportsProtobuf,
  type ProtobufListParts,
  type DecodedObject,
  type ProtobufDecodeOptions,
} from './envelope.ts';
export {
  decodeProtobufWatchFrames,
  encodeProtobufWatchEvent,
  frameProtobufWatchEvent,
  type DecodedWatchEvent,
} from './watch.ts';
export { messageForKind } from './kind-messages.ts';
export { decodeMessage, encodeMessage } from './message-codec.ts';
