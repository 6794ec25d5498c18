// Echo server on grpc-js for the interop suite: the semantics of
// examples/echo_service.cc. A grpc-js server reads gzip and deflate requests
// but never compresses its responses, so response_encoding is ignored.
//
//   node echo_server.js --port=0   prints "listening on 127.0.0.1:PORT"
'use strict';

const {grpc, loadEcho, parseFlags, MESSAGE_LIMITS} = require('./peer_common');

const echo = loadEcho();
const flags = parseFlags({port: '0'});

const service = {
  Unary(call, callback) {
    callback(null, {payload: call.request.payload});
  },
  ServerStream(call) {
    const count = Math.max(call.request.response_count, 1);
    for (let i = 0; i < count; ++i) call.write({payload: call.request.payload});
    call.end();
  },
  ClientStream(call, callback) {
    let last = Buffer.alloc(0);
    let messages = 0;
    let bytes = 0;
    call.on('data', (request) => {
      ++messages;
      bytes += request.payload.length;
      last = request.payload;
    });
    call.on('end', () => callback(null, {
      payload: last, received_messages: messages, received_bytes: bytes,
    }));
  },
  Bidi(call) {
    call.on('data', (request) => call.write({payload: request.payload}));
    call.on('end', () => call.end());
  },
};

const server = new grpc.Server(MESSAGE_LIMITS);
server.addService(echo.Echo.service, service);
server.bindAsync(`127.0.0.1:${flags.port}`,
                 grpc.ServerCredentials.createInsecure(), (error, port) => {
                   if (error) {
                     console.log(`cannot listen: ${error.message}`);
                     process.exit(1);
                   }
                   console.log(`listening on 127.0.0.1:${port} (grpc-js ${
                       require('@grpc/grpc-js/package.json').version})`);
                 });
process.on('SIGTERM', () => server.forceShutdown());
