// Package peerlib holds what the suite's grpc-go programs share.
package peerlib

import (
	"compress/zlib"
	"io"

	"google.golang.org/grpc/encoding"
	// gzip is the only compressor grpc-go ships; importing it registers it.
	_ "google.golang.org/grpc/encoding/gzip"
)

// DeflateName is the grpc-encoding gRPC uses for the zlib format (RFC 1950).
const DeflateName = "deflate"

// grpc-go 1.33 has no deflate compressor of its own. It does have a public
// plug-in API, so the suite registers one built on Go's compress/zlib: an
// implementation that shares no code with zlib, let alone with pooled-gzip.
type deflateCompressor struct{}

func (deflateCompressor) Compress(w io.Writer) (io.WriteCloser, error) {
	return zlib.NewWriter(w), nil
}

func (deflateCompressor) Decompress(r io.Reader) (io.Reader, error) {
	return zlib.NewReader(r)
}

func (deflateCompressor) Name() string { return DeflateName }

func init() {
	encoding.RegisterCompressor(deflateCompressor{})
}
