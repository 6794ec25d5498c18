#include "wire_relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "connection_decoder.h"

namespace pooled_gzip::interop {
namespace {

// Bounds what the relay holds per direction, and so its back-pressure.
constexpr size_t kReadChunk = 64 * 1024;

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  return address;
}

void SetNonBlocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ConnectUpstream(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address = Loopback(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool Retry(int error) {
  return error == EAGAIN || error == EWOULDBLOCK || error == EINTR;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WireRelay>> WireRelay::Start(int upstream_port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  sockaddr_in address = Loopback(0);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("cannot listen: errno ", errno));
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::InternalError("pipe2() failed");
  }
  return std::unique_ptr<WireRelay>(new WireRelay(
      fd, ntohs(address.sin_port), upstream_port, wake[0], wake[1]));
}

WireRelay::WireRelay(int listen_fd, int port, int upstream_port, int wake_read,
                     int wake_write)
    : listen_fd_(listen_fd),
      port_(port),
      upstream_port_(upstream_port),
      wake_read_(wake_read),
      wake_write_(wake_write) {
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

WireRelay::~WireRelay() {
  const char byte = 0;
  (void)!write(wake_write_, &byte, 1);
  acceptor_.join();
  // No new pump starts once the acceptor is gone.
  for (std::thread& pump : pumps_) pump.join();
  close(listen_fd_);
  close(wake_read_);
  close(wake_write_);
}

bool WireRelay::WaitUntilIdle(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                        [this] { return open_ == 0; });
}

std::vector<ConnectionRecord> WireRelay::Connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ConnectionRecord> records = closed_;
  std::sort(records.begin(), records.end(),
            [](const ConnectionRecord& a, const ConnectionRecord& b) {
              return a.index < b.index;
            });
  return records;
}

std::vector<StreamRecord> WireRelay::Streams() const {
  std::vector<StreamRecord> streams;
  for (const ConnectionRecord& connection : Connections()) {
    for (const auto& [id, stream] : connection.streams) {
      streams.push_back(stream);
    }
  }
  std::stable_sort(streams.begin(), streams.end(),
                   [](const StreamRecord& a, const StreamRecord& b) {
                     return a.opened_at < b.opened_at;
                   });
  return streams;
}

void WireRelay::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (!(fds[0].revents & POLLIN)) continue;
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const int server = ConnectUpstream(upstream_port_);
    if (server < 0) {
      close(client);  // the client sees the refusal as a reset connection
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    const int index = accepted_++;
    ++open_;
    pumps_.emplace_back(
        [this, index, client, server] { Pump(index, client, server); });
  }
}

void WireRelay::Pump(int index, int client_fd, int server_fd) {
  SetNonBlocking(client_fd);
  SetNonBlocking(server_fd);
  ConnectionDecoder decoder(index);
  // Direction d reads from source[d] and writes to source[1 - d].
  const int source[2] = {client_fd, server_fd};
  std::string pending[2];
  bool eof[2] = {false, false};
  bool shut[2] = {false, false};
  std::string chunk(kReadChunk, '\0');
  while (!(shut[0] && shut[1])) {
    pollfd fds[3];
    for (int side = 0; side < 2; ++side) {
      const int out = 1 - side;  // the direction that writes to this side
      fds[side].fd = source[side];
      fds[side].events = 0;
      fds[side].revents = 0;
      if (!eof[side] && pending[side].empty()) fds[side].events |= POLLIN;
      if (!pending[out].empty()) fds[side].events |= POLLOUT;
    }
    fds[2] = {wake_read_, POLLIN, 0};
    if (poll(fds, 3, -1) < 0 && errno != EINTR) break;
    if (fds[2].revents != 0) break;
    for (int d = 0; d < 2; ++d) {
      const int destination = 1 - d;
      if ((fds[d].events & POLLIN) && fds[d].revents != 0) {
        const ssize_t n = read(source[d], chunk.data(), chunk.size());
        if (n > 0) {
          decoder.Feed(static_cast<Direction>(d),
                       absl::string_view(chunk.data(), n));
          pending[d].append(chunk.data(), n);
        } else if (n == 0 || !Retry(errno)) {
          eof[d] = true;
        }
      }
      if (!pending[d].empty() &&
          (fds[destination].revents & (POLLOUT | POLLERR | POLLHUP))) {
        const ssize_t n = send(source[destination], pending[d].data(),
                               pending[d].size(), MSG_NOSIGNAL);
        if (n > 0) {
          pending[d].erase(0, n);
        } else if (n < 0 && !Retry(errno)) {
          pending[d].clear();  // the destination is gone
          eof[d] = true;
        }
      }
      if (eof[d] && pending[d].empty() && !shut[d]) {
        shutdown(source[destination], SHUT_WR);
        shut[d] = true;
      }
    }
  }
  close(client_fd);
  close(server_fd);
  std::lock_guard<std::mutex> lock(mu_);
  closed_.push_back(decoder.record());
  --open_;
  idle_.notify_all();
}

}  // namespace pooled_gzip::interop
