/**
 * Temporal's payloads for values that hold bigint (docs/money.md, "Integers end to end"): the data
 * is the JSON it always was, a bigint written as its decimal text, so the Temporal UI and CLI show
 * it as before; superjson's note of which paths were bigint rides in the payload's metadata. A
 * payload without that note (recorded before, or typed by hand in the UI or the CLI) is plain JSON:
 * where it carries money as text, src/ledger/moneyFields.rules.ts makes it bigint where the workflow takes it.
 * Loaded by path into the workflow bundle, the workers and every client (`PAYLOAD_CONVERTER_PATH`).
 */
import {
  BinaryPayloadConverter,
  CompositePayloadConverter,
  METADATA_ENCODING_KEY,
  type Payload,
  type PayloadConverterWithEncoding,
  UndefinedPayloadConverter,
  ValueError,
  encodingKeys,
  encodingTypes,
} from '@temporalio/common';
import { decode, encode } from '@temporalio/common/lib/encoding';
import { deserialize, serialize } from 'superjson';

/** The metadata key under which superjson's record of the value's bigint paths travels. */
export const BIGINT_PATHS_KEY = 'superjson-meta';

class JsonWithBigintPayloadConverter implements PayloadConverterWithEncoding {
  public readonly encodingType = encodingTypes.METADATA_ENCODING_JSON;

  toPayload(value: unknown): Payload | undefined {
    if (value === undefined) return undefined;
    const { json, meta } = serialize(value);
    const metadata: Record<string, Uint8Array> = { [METADATA_ENCODING_KEY]: encodingKeys.METADATA_ENCODING_JSON };
    if (meta) metadata[BIGINT_PATHS_KEY] = encode(JSON.stringify(meta));
    return { metadata, data: encode(JSON.stringify(json)) };
  }

  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the SDK's interface is generic in T
  fromPayload<T>(payload: Payload): T {
    if (payload.data === undefined || payload.data === null) throw new ValueError('Got payload with no data');
    const json: unknown = JSON.parse(decode(payload.data));
    const meta = payload.metadata?.[BIGINT_PATHS_KEY];
    if (!meta) return json as T;
    return deserialize<T>({ json: json as never, meta: JSON.parse(decode(meta)) as never });
  }
}

export const payloadConverter = new CompositePayloadConverter(
  new UndefinedPayloadConverter(),
  new BinaryPayloadConverter(),
  new JsonWithBigintPayloadConverter(),
);
