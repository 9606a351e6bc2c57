export { encodeCbor, encodeCborValue, encodeCborMapOfParts, encodeCborArrayOfParts, encodeCborList, SELF_DESCRIBED_CBOR } from './encode.ts';
export { decodeCbor, CborDecodeError } from './decode.ts';
