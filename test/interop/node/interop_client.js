// The gRPC interop compression cases on grpc-js, run against the suite's
// pooled-gzip TestService. grpc-js cannot see the compressed flag of the
// responses it receives; the suite's wire relay checks those instead.
//
//   node interop_client.js --server_host=127.0.0.1 --server_port=PORT \
//       --test_case=client_compressed_unary|server_compressed_unary|
//                   client_compressed_streaming|server_compressed_streaming
'use strict';

const {grpc, loadTesting, parseFlags, MESSAGE_LIMITS, ALGORITHM_KEYS} =
    require('./peer_common');

const testing = loadTesting();
const flags = parseFlags({server_host: '127.0.0.1', server_port: '', test_case: ''});
const target = `${flags.server_host}:${flags.server_port}`;
const credentials = grpc.credentials.createInsecure();
// Calls on `plain` are uncompressed. On `gzip` every message is compressed
// unless written with grpc-js's NoCompress write flag.
const plain = new testing.TestService(target, credentials, MESSAGE_LIMITS);
const gzip = new testing.TestService(target, credentials, {
  ...MESSAGE_LIMITS,
  'grpc.default_compression_algorithm': ALGORITHM_KEYS.gzip,
});
const NO_COMPRESS = 2;  // grpc-js WriteFlags.NoCompress
const deadline = () => Date.now() + 60000;

function check(condition, what) {
  if (!condition) throw new Error(what);
}

function unaryCall(client, request) {
  return new Promise((resolve, reject) => {
    client.UnaryCall(request, {deadline: deadline()},
                     (error, response) => (error ? reject(error) : resolve(response)));
  });
}

function largeRequest(fields) {
  return {response_size: 314159, payload: {body: Buffer.alloc(271828)}, ...fields};
}

async function expectInvalidArgument(promise, what) {
  try {
    await promise;
  } catch (error) {
    check(error.code === grpc.status.INVALID_ARGUMENT,
          `${what}: want INVALID_ARGUMENT, got ${error.code} ${error.details}`);
    return;
  }
  throw new Error(`${what}: want INVALID_ARGUMENT, got OK`);
}

async function clientCompressedUnary() {
  await expectInvalidArgument(
      unaryCall(plain, largeRequest({expect_compressed: {value: true}})), 'probe');
  let response = await unaryCall(gzip, largeRequest({expect_compressed: {value: true}}));
  check(response.payload.body.length === 314159, 'compressed call: body size');
  response = await unaryCall(plain, largeRequest({expect_compressed: {value: false}}));
  check(response.payload.body.length === 314159, 'uncompressed call: body size');
}

async function serverCompressedUnary() {
  for (const compressed of [true, false]) {
    const response =
        await unaryCall(plain, largeRequest({response_compressed: {value: compressed}}));
    check(response.payload.body.length === 314159, `response_compressed=${compressed}`);
  }
}

// Writes `messages` ([message, flags]) on a StreamingInputCall.
function streamingInput(client, messages) {
  return new Promise((resolve, reject) => {
    const call = client.StreamingInputCall(
        {deadline: deadline()}, (error, response) => (error ? reject(error) : resolve(response)));
    for (const [message, writeFlags] of messages) call.write(message, writeFlags);
    call.end();
  });
}

async function clientCompressedStreaming() {
  const body = (size) => ({body: Buffer.alloc(size)});
  await expectInvalidArgument(
      streamingInput(plain, [[{expect_compressed: {value: true}, payload: body(27182)}, 0]]),
      'probe');
  const response = await streamingInput(gzip, [
    [{expect_compressed: {value: true}, payload: body(27182)}, 0],
    [{expect_compressed: {value: false}, payload: body(45904)}, NO_COMPRESS],
  ]);
  check(response.aggregated_payload_size === 73086,
        `aggregated_payload_size ${response.aggregated_payload_size}`);
}

function serverCompressedStreaming() {
  const sizes = [31415, 92653];
  return new Promise((resolve, reject) => {
    const call = plain.StreamingOutputCall({
      response_parameters: [
        {size: sizes[0], compressed: {value: true}},
        {size: sizes[1], compressed: {value: false}},
      ],
    }, {deadline: deadline()});
    const received = [];
    call.on('data', (response) => received.push(response.payload.body.length));
    call.on('error', reject);
    call.on('end', () => (received.join() === sizes.join()
                              ? resolve()
                              : reject(new Error(`response sizes ${received.join()}`))));
  });
}

const CASES = {
  client_compressed_unary: clientCompressedUnary,
  server_compressed_unary: serverCompressedUnary,
  client_compressed_streaming: clientCompressedStreaming,
  server_compressed_streaming: serverCompressedStreaming,
};

async function main() {
  const run = CASES[flags.test_case];
  if (!run) {
    console.log(`unknown test case ${flags.test_case}`);
    process.exit(2);
  }
  try {
    await run();
    console.log(`ok ${flags.test_case}`);
    process.exitCode = 0;
  } catch (error) {
    console.log(`FAIL ${flags.test_case}: ${error.message}`);
    process.exitCode = 1;
  }
  plain.close();
  gzip.close();
}

main();
