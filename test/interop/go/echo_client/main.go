// Echo client on grpc-go for the interop suite: every RPC kind and payload
// size against one server, each echo checked. Exit code 0 iff all passed.
//
//	echo_client --target=127.0.0.1:PORT --compression=gzip|deflate|none
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	pb "pooledgzip.test/interop/echopb"
	"pooledgzip.test/interop/peerlib"
)

type cell func(ctx context.Context, client pb.EchoClient, size, count int, encoding string) error

func request(size, seed int, encoding string) *pb.EchoRequest {
	return &pb.EchoRequest{Payload: peerlib.PeerPayload(size, seed), ResponseEncoding: encoding}
}

func unary(ctx context.Context, client pb.EchoClient, size, count int, encoding string) error {
	for i := 0; i < count; i++ {
		req := request(size, i, encoding)
		resp, err := client.Unary(ctx, req)
		if err != nil {
			return err
		}
		if !bytes.Equal(resp.Payload, req.Payload) {
			return fmt.Errorf("call %d: echo differs", i)
		}
	}
	return nil
}

func serverStream(ctx context.Context, client pb.EchoClient, size, count int, encoding string) error {
	req := request(size, 0, encoding)
	req.ResponseCount = uint32(count)
	stream, err := client.ServerStream(ctx, req)
	if err != nil {
		return err
	}
	received := 0
	for {
		resp, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if !bytes.Equal(resp.Payload, req.Payload) {
			return fmt.Errorf("response %d: echo differs", received)
		}
		received++
	}
	if received != count {
		return fmt.Errorf("got %d responses, want %d", received, count)
	}
	return nil
}

func clientStream(ctx context.Context, client pb.EchoClient, size, count int, encoding string) error {
	stream, err := client.ClientStream(ctx)
	if err != nil {
		return err
	}
	var last *pb.EchoRequest
	for i := 0; i < count; i++ {
		last = request(size, i, encoding)
		if err := stream.Send(last); err != nil {
			return err
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return err
	}
	if !bytes.Equal(resp.Payload, last.Payload) || resp.ReceivedMessages != uint64(count) ||
		resp.ReceivedBytes != uint64(count*size) {
		return fmt.Errorf("summary differs: %d messages, %d bytes", resp.ReceivedMessages, resp.ReceivedBytes)
	}
	return nil
}

func bidi(ctx context.Context, client pb.EchoClient, size, count int, encoding string) error {
	stream, err := client.Bidi(ctx)
	if err != nil {
		return err
	}
	for i := 0; i < count; i++ {
		req := request(size, i, encoding)
		if err := stream.Send(req); err != nil {
			return err
		}
		resp, err := stream.Recv()
		if err != nil {
			return err
		}
		if !bytes.Equal(resp.Payload, req.Payload) {
			return fmt.Errorf("message %d: echo differs", i)
		}
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	if _, err := stream.Recv(); err != io.EOF {
		return fmt.Errorf("want end of stream, got %v", err)
	}
	return nil
}

func main() {
	target := flag.String("target", "", "server address")
	compression := flag.String("compression", "gzip", "gzip | deflate | none")
	sizes := flag.String("sizes", "1,1024,1048576", "payload sizes")
	count := flag.Int("count", 3, "messages per RPC")
	flag.Parse()

	callOptions := []grpc.CallOption{grpc.MaxCallRecvMsgSize(64 << 20), grpc.MaxCallSendMsgSize(64 << 20)}
	encoding := "identity"
	if *compression != "none" {
		callOptions = append(callOptions, grpc.UseCompressor(*compression))
		encoding = *compression
	}
	conn, err := grpc.Dial(*target, grpc.WithInsecure(), grpc.WithDefaultCallOptions(callOptions...))
	if err != nil {
		fmt.Printf("FAIL dial: %v\n", err)
		os.Exit(1)
	}
	defer conn.Close()
	client := pb.NewEchoClient(conn)

	cells := []struct {
		name string
		run  cell
	}{{"unary", unary}, {"server_stream", serverStream}, {"client_stream", clientStream}, {"bidi", bidi}}
	failures := 0
	for _, c := range cells {
		for _, field := range strings.Split(*sizes, ",") {
			size, _ := strconv.Atoi(field)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			if err := c.run(ctx, client, size, *count, encoding); err != nil {
				fmt.Printf("FAIL %s size=%d: %v\n", c.name, size, err)
				failures++
			} else {
				fmt.Printf("ok %s size=%d\n", c.name, size)
			}
			cancel()
		}
	}
	if failures != 0 {
		os.Exit(1)
	}
}
