// The gRPC interop compression cases on grpc-go, run against the suite's
// pooled-gzip TestService. grpc-go 1.33 compresses per call, never per
// message, so client_compressed_streaming (one compressed and one
// uncompressed message on the same call) cannot be written with it; asked
// for it, this client exits with code 3.
//
//	interop_client --server_host=127.0.0.1 --server_port=PORT --test_case=NAME
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/status"
	pb "pooledgzip.test/interop/testingpb"
)

func largeRequest(expectCompressed, responseCompressed *pb.BoolValue) *pb.SimpleRequest {
	return &pb.SimpleRequest{
		ResponseSize:       314159,
		Payload:            &pb.Payload{Body: make([]byte, 271828)},
		ExpectCompressed:   expectCompressed,
		ResponseCompressed: responseCompressed,
	}
}

func checkBody(resp *pb.SimpleResponse, want int) error {
	if got := len(resp.GetPayload().GetBody()); got != want {
		return fmt.Errorf("response body is %d bytes, want %d", got, want)
	}
	return nil
}

func clientCompressedUnary(ctx context.Context, client pb.TestServiceClient) error {
	_, err := client.UnaryCall(ctx, largeRequest(&pb.BoolValue{Value: true}, nil))
	if status.Code(err) != codes.InvalidArgument {
		return fmt.Errorf("probe: want INVALID_ARGUMENT, got %v", err)
	}
	resp, err := client.UnaryCall(ctx, largeRequest(&pb.BoolValue{Value: true}, nil),
		grpc.UseCompressor(gzip.Name))
	if err != nil {
		return fmt.Errorf("compressed call: %v", err)
	}
	if err := checkBody(resp, 314159); err != nil {
		return err
	}
	resp, err = client.UnaryCall(ctx, largeRequest(&pb.BoolValue{Value: false}, nil))
	if err != nil {
		return fmt.Errorf("uncompressed call: %v", err)
	}
	return checkBody(resp, 314159)
}

func serverCompressedUnary(ctx context.Context, client pb.TestServiceClient) error {
	for _, compressed := range []bool{true, false} {
		resp, err := client.UnaryCall(ctx, largeRequest(nil, &pb.BoolValue{Value: compressed}))
		if err != nil {
			return fmt.Errorf("response_compressed=%v: %v", compressed, err)
		}
		if err := checkBody(resp, 314159); err != nil {
			return err
		}
	}
	return nil
}

func serverCompressedStreaming(ctx context.Context, client pb.TestServiceClient) error {
	sizes := []int32{31415, 92653}
	stream, err := client.StreamingOutputCall(ctx, &pb.StreamingOutputCallRequest{
		ResponseParameters: []*pb.ResponseParameters{
			{Size: sizes[0], Compressed: &pb.BoolValue{Value: true}},
			{Size: sizes[1], Compressed: &pb.BoolValue{Value: false}},
		}})
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		resp, err := stream.Recv()
		if err == io.EOF {
			if i != len(sizes) {
				return fmt.Errorf("got %d responses, want %d", i, len(sizes))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if i >= len(sizes) || len(resp.GetPayload().GetBody()) != int(sizes[i]) {
			return fmt.Errorf("response %d has %d bytes", i, len(resp.GetPayload().GetBody()))
		}
	}
}

func main() {
	host := flag.String("server_host", "127.0.0.1", "server host")
	port := flag.Int("server_port", 0, "server port")
	testCase := flag.String("test_case", "", "interop test case")
	flag.Parse()

	cases := map[string]func(context.Context, pb.TestServiceClient) error{
		"client_compressed_unary":     clientCompressedUnary,
		"server_compressed_unary":     serverCompressedUnary,
		"server_compressed_streaming": serverCompressedStreaming,
	}
	run, ok := cases[*testCase]
	if !ok {
		fmt.Printf("unsupported test case %q on grpc-go %s\n", *testCase, grpc.Version)
		os.Exit(3)
	}
	conn, err := grpc.Dial(fmt.Sprintf("%s:%d", *host, *port), grpc.WithInsecure())
	if err != nil {
		fmt.Printf("FAIL dial: %v\n", err)
		os.Exit(1)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, pb.NewTestServiceClient(conn)); err != nil {
		fmt.Printf("FAIL %s: %v\n", *testCase, err)
		os.Exit(1)
	}
	fmt.Printf("ok %s\n", *testCase)
}
