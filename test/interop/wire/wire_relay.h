// A TCP relay on loopback that sits between a gRPC client and server and
// records, through ConnectionDecoder, what each side put on the wire.
//
//   client --> 127.0.0.1:relay.port() --> 127.0.0.1:upstream_port (server)
//
// Every accepted connection gets its own thread, which forwards bytes both
// ways with back-pressure (it reads from a side only once the other side took
// everything read before) and decodes them as they pass.

#ifndef POOLED_GZIP_TEST_INTEROP_WIRE_WIRE_RELAY_H_
#define POOLED_GZIP_TEST_INTEROP_WIRE_WIRE_RELAY_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "wire_record.h"

namespace pooled_gzip::interop {

class WireRelay {
 public:
  // Listens on an ephemeral port of 127.0.0.1.
  static absl::StatusOr<std::unique_ptr<WireRelay>> Start(int upstream_port);
  // Stops accepting, closes every connection and joins all threads.
  ~WireRelay();
  WireRelay(const WireRelay&) = delete;
  WireRelay& operator=(const WireRelay&) = delete;

  int port() const { return port_; }

  // Waits until every connection accepted so far has been closed by both
  // sides, so that its record is complete. False on timeout.
  bool WaitUntilIdle(absl::Duration timeout);

  // Records of the connections closed so far, in the order accepted.
  std::vector<ConnectionRecord> Connections() const;
  // Their streams, in the order they opened.
  std::vector<StreamRecord> Streams() const;

 private:
  WireRelay(int listen_fd, int port, int upstream_port, int wake_read,
            int wake_write);
  void AcceptLoop();
  void Pump(int index, int client_fd, int server_fd);

  const int listen_fd_;
  const int port_;
  const int upstream_port_;
  // Written once on destruction; every thread polls the read end to stop.
  const int wake_read_;
  const int wake_write_;

  mutable std::mutex mu_;
  std::condition_variable idle_;
  int accepted_ = 0;
  int open_ = 0;
  std::vector<ConnectionRecord> closed_;
  std::vector<std::thread> pumps_;
  std::thread acceptor_;
};

}  // namespace pooled_gzip::interop

#endif  // POOLED_GZIP_TEST_INTEROP_WIRE_WIRE_RELAY_H_
