// What the suite's grpc-js programs share: proto loading, flags, payloads.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const LOADER_OPTIONS = {keepCase: true, longs: Number, defaults: true};

// Every message may be as large as the suite sends (1 MiB payloads).
const MESSAGE_LIMITS = {
  'grpc.max_receive_message_length': 64 << 20,
  'grpc.max_send_message_length': 64 << 20,
};

// grpc-js's keys for grpc.default_compression_algorithm.
const ALGORITHM_KEYS = {none: 0, deflate: 1, gzip: 2};

function loadEcho() {
  const dir = path.join(__dirname, '..', '..', '..', 'proto');
  const definition = protoLoader.loadSync(path.join(dir, 'echo.proto'),
                                          {...LOADER_OPTIONS, includeDirs: [dir]});
  return grpc.loadPackageDefinition(definition).pooled_gzip.echo;
}

function loadTesting() {
  const dir = path.join(__dirname, '..', 'proto');
  const definition = protoLoader.loadSync('grpc/testing/test.proto',
                                          {...LOADER_OPTIONS, includeDirs: [dir]});
  return grpc.loadPackageDefinition(definition).grpc.testing;
}

// --name=value flags into an object, over `defaults`.
function parseFlags(defaults) {
  const flags = {...defaults};
  for (const arg of process.argv.slice(2)) {
    const match = /^--([^=]+)=(.*)$/.exec(arg);
    if (!match || !(match[1] in defaults)) {
      console.log(`unknown flag ${arg}`);
      process.exit(2);
    }
    flags[match[1]] = match[2];
  }
  return flags;
}

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo',
               'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

// The suite's deterministic payload; see test/interop/harness/peer_payload.cc.
function peerPayload(size, seed) {
  let text = '';
  for (let k = 0; text.length < size; ++k) {
    text += WORDS[(k * 7 + seed * 3) % WORDS.length];
    text += k % 8 === 7 ? '\n' : ' ';
  }
  return Buffer.from(text.slice(0, size), 'latin1');
}

module.exports = {
  grpc, loadEcho, loadTesting, parseFlags, peerPayload, MESSAGE_LIMITS,
  ALGORITHM_KEYS,
};
