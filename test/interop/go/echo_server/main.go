// Echo server on grpc-go for the interop suite: the semantics of
// examples/echo_service.cc. grpc-go 1.33 cannot pick a response encoding per
// call (SetSendCompressor came later): it compresses replies with whatever
// compressor the request used, so response_encoding is ignored.
//
//	echo_server --port=0   prints "listening on 127.0.0.1:PORT"
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"

	"google.golang.org/grpc"
	pb "pooledgzip.test/interop/echopb"
	_ "pooledgzip.test/interop/peerlib" // registers gzip and deflate
)

type echoServer struct{}

func (echoServer) Unary(ctx context.Context, req *pb.EchoRequest) (*pb.EchoResponse, error) {
	return &pb.EchoResponse{Payload: req.Payload}, nil
}

func (echoServer) ServerStream(req *pb.EchoRequest, stream pb.Echo_ServerStreamServer) error {
	count := req.ResponseCount
	if count == 0 {
		count = 1
	}
	for i := uint32(0); i < count; i++ {
		if err := stream.Send(&pb.EchoResponse{Payload: req.Payload}); err != nil {
			return err
		}
	}
	return nil
}

func (echoServer) ClientStream(stream pb.Echo_ClientStreamServer) error {
	var last []byte
	var messages, bytes uint64
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(&pb.EchoResponse{
				Payload: last, ReceivedMessages: messages, ReceivedBytes: bytes})
		}
		if err != nil {
			return err
		}
		messages++
		bytes += uint64(len(req.Payload))
		last = req.Payload
	}
}

func (echoServer) Bidi(stream pb.Echo_BidiServer) error {
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.Send(&pb.EchoResponse{Payload: req.Payload}); err != nil {
			return err
		}
	}
}

func main() {
	port := flag.Int("port", 0, "TCP port on 127.0.0.1; 0 picks a free one")
	flag.Parse()
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatalf("listen: %v", err)
	}
	server := grpc.NewServer(grpc.MaxRecvMsgSize(64<<20), grpc.MaxSendMsgSize(64<<20))
	pb.RegisterEchoServer(server, echoServer{})
	fmt.Printf("listening on %s (grpc-go %s)\n", listener.Addr(), grpc.Version)
	if err := server.Serve(listener); err != nil {
		log.Fatalf("serve: %v", err)
	}
}
