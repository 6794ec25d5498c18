// Echo client on grpc-js for the interop suite: every RPC kind and payload
// size against one server, each echo checked. Exit code 0 iff all passed.
//
//   node echo_client.js --target=127.0.0.1:PORT --compression=gzip|deflate|none
'use strict';

const {grpc, loadEcho, parseFlags, peerPayload, MESSAGE_LIMITS, ALGORITHM_KEYS} =
    require('./peer_common');

const echo = loadEcho();
const flags = parseFlags(
    {target: '', compression: 'gzip', sizes: '1,1024,1048576', count: '3'});
const count = Number(flags.count);
const encoding = flags.compression === 'none' ? 'identity' : flags.compression;

const options = {...MESSAGE_LIMITS};
if (flags.compression !== 'none') {
  options['grpc.default_compression_algorithm'] = ALGORITHM_KEYS[flags.compression];
}
const deadline = () => Date.now() + 60000;

// A fresh channel for every call. grpc-js stops compressing on a channel
// once the server's grpc-accept-encoding lacks its algorithm, and it splits
// that list on ',' without trimming: gRPC C++ sends "identity, deflate, gzip",
// in which it never finds "gzip". A new channel compresses again until it
// reads the list (so within a call, messages after the response headers go
// out plain). 'grpc.use_local_subchannel_pool' keeps channels from sharing
// one connection, and with it that knowledge.
let client = null;
function newClient() {
  if (client) client.close();
  client = new echo.Echo(flags.target, grpc.credentials.createInsecure(),
                         {...options, 'grpc.use_local_subchannel_pool': 1});
  return client;
}

function request(size, seed) {
  return {payload: peerPayload(size, seed), response_encoding: encoding};
}

function unaryCall(req) {
  return new Promise((resolve, reject) => {
    newClient().Unary(req, {deadline: deadline()},
                 (error, response) => (error ? reject(error) : resolve(response)));
  });
}

async function unary(size) {
  for (let i = 0; i < count; ++i) {
    const req = request(size, i);
    const response = await unaryCall(req);
    if (!response.payload.equals(req.payload)) throw new Error(`call ${i}: echo differs`);
  }
}

function serverStream(size) {
  const req = {...request(size, 0), response_count: count};
  return new Promise((resolve, reject) => {
    const call = newClient().ServerStream(req, {deadline: deadline()});
    let received = 0;
    call.on('data', (response) => {
      if (!response.payload.equals(req.payload)) {
        reject(new Error(`response ${received}: echo differs`));
      }
      ++received;
    });
    call.on('error', reject);
    call.on('end', () => (received === count
                              ? resolve()
                              : reject(new Error(`got ${received} responses`))));
  });
}

function clientStream(size) {
  return new Promise((resolve, reject) => {
    const call = newClient().ClientStream({deadline: deadline()}, (error, response) => {
      if (error) return reject(error);
      const last = peerPayload(size, count - 1);
      if (!response.payload.equals(last) || response.received_messages !== count ||
          response.received_bytes !== count * size) {
        return reject(new Error('summary differs'));
      }
      resolve();
    });
    for (let i = 0; i < count; ++i) call.write(request(size, i));
    call.end();
  });
}

function bidi(size) {
  return new Promise((resolve, reject) => {
    const call = newClient().Bidi({deadline: deadline()});
    let next = 0;
    const sendNext = () => {
      if (next === count) {
        call.end();
      } else {
        call.write(request(size, next));
      }
    };
    call.on('data', (response) => {
      if (!response.payload.equals(peerPayload(size, next))) {
        reject(new Error(`message ${next}: echo differs`));
      }
      ++next;
      sendNext();
    });
    call.on('error', reject);
    call.on('end', () => (next === count ? resolve()
                                         : reject(new Error(`got ${next} responses`))));
    sendNext();
  });
}

async function main() {
  const cells = [['unary', unary], ['server_stream', serverStream],
                 ['client_stream', clientStream], ['bidi', bidi]];
  let failures = 0;
  for (const [name, run] of cells) {
    for (const size of flags.sizes.split(',').map(Number)) {
      try {
        await run(size);
        console.log(`ok ${name} size=${size}`);
      } catch (error) {
        console.log(`FAIL ${name} size=${size}: ${error.message}`);
        ++failures;
      }
    }
  }
  if (client) client.close();
  process.exit(failures === 0 ? 0 : 1);
}

main();
