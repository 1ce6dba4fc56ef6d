package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
)

// ErrServer: the server answered a request with an error.
var ErrServer = errors.New("hook-exec serve")

// Client asks a Server for runs over one connection, one at a time.
type Client struct {
	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
}

// Dial connects to the server listening on the unix socket at path.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", path, err)
	}
	return &Client{conn: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

// Run sends one request and waits for its answer, or for ctx. A Response
// whose Error is set is returned with an error wrapping ErrServer; after a
// cancelled wait the connection is closed, since its next line would be the
// late answer.
func (c *Client) Run(ctx context.Context, req Request) (*Response, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { c.conn.Close() })
	defer stop()
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		// A server that refused the connection said why before it closed
		// it; that line is still there to read.
		if resp, rerr := c.read(ctx); errors.Is(rerr, ErrServer) {
			return resp, rerr
		}
		return nil, fmt.Errorf("send request: %w", errors.Join(ctx.Err(), err))
	}
	return c.read(ctx)
}

// read reads one Response. One whose Error is set is returned with an
// error wrapping ErrServer.
func (c *Client) read(ctx context.Context) (*Response, error) {
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("read response: %w", errors.Join(ctx.Err(), err))
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	if resp.Error != "" {
		return &resp, fmt.Errorf("%w: %s", ErrServer, resp.Error)
	}
	return &resp, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }
