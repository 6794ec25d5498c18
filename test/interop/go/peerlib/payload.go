package peerlib

import "strings"

var words = []string{"alpha", "bravo", "charlie", "delta", "echo",
	"foxtrot", "golf", "hotel", "india", "juliet"}

// PeerPayload returns the suite's deterministic, compressible payload: the
// same bytes as PeerPayload in test/interop/harness/peer_payload.cc and the
// Node and Python peers, so the wire checks know what each message holds.
func PeerPayload(size int, seed int) []byte {
	var b strings.Builder
	for k := 0; b.Len() < size; k++ {
		b.WriteString(words[(k*7+seed*3)%len(words)])
		if k%8 == 7 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return []byte(b.String()[:size])
}
