package tcsandbox_test

import (
	"context"
	"log"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/hookexec/hook-exec/hookexectest/tcsandbox"
	"github.com/hookexec/hook-exec/sandbox"
)

// Any testcontainers-go container, hardened as a hook's sandbox is: no
// network, a read-only root, no capabilities, user 65534, the same limits
// and seccomp profile. sandbox.Option values change it as they change a hook's.
func ExampleCustomize() {
	ctx := context.Background()
	ctr, err := testcontainers.Run(ctx, "my/hook-image:1",
		testcontainers.WithCmd("sh", "-c", "id -u"),
		tcsandbox.Customize(sandbox.WithLimits(64<<20, 16, 5e8)), // 64 MiB, 16 pids, half a CPU
		testcontainers.WithWaitStrategy(wait.ForExit()),
	)
	defer testcontainers.TerminateContainer(ctr)
	if err != nil {
		log.Fatal(err)
	}
}
