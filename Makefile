# hook-exec: every target runs from a fresh clone; see README.md.
GO      ?= go
BIN     := bin/hook-exec
PKGS    := ./...

TOOLS   := $(CURDIR)/bin/testtools

.PHONY: build test test-slow testtools runsc crun sshd podman rootless unit e2e e2e-ssh e2e-podman e2e-rootless e2e-k8s k8s-tools bench bench-k8s lint images demo fuzz soak

build:
	$(GO) build -o bin/ ./cmd/hook-exec ./cmd/hook-exec-core

# The reference images, built from Debian packages through the Engine API;
# skipped when an image with the same inputs exists. apt's package lists and
# a running engine are provided first when missing (scripts/prepare.sh):
# `make test` and `make demo` need nothing set up by hand.
images: build
	./scripts/prepare.sh apt engine
	./$(BIN) images build

# The shells the launcher tests run (dash, busybox), extracted from Debian's
# packages into bin/testtools; python3, and jq, node, git and perl for the corpus's
# hooks run on the host, from the host (installed when root).
testtools:
	./scripts/prepare.sh apt
	./scripts/testtools.sh $(TOOLS)

# gVisor for --runtime runsc on both engines (as root; see prepare.sh).
runsc: build
	./scripts/prepare.sh apt engine runsc

# crun for --runtime crun on both engines (as root; see prepare.sh).
crun: build
	./scripts/prepare.sh apt engine crun

# Debian's openssh-server, whose sshd the remote-engine pass starts on
# loopback with a config and keys of its own (see prepare.sh).
sshd:
	./scripts/prepare.sh apt sshd

# Debian's podman, whose `podman system service` the Podman pass starts on
# a socket of its own (see prepare.sh).
podman:
	./scripts/prepare.sh apt podman

# What the rootless Docker pass needs: rootlesskit, slirp4netns, uidmap and
# an account of its own (see prepare.sh).
rootless:
	./scripts/prepare.sh apt rootless

# The core and adversarial suites under gVisor, a pass of their own: runsc
# is CPU-hungry, and beside the load suites it would starve them.
E2E_RUNSC = HOOKEXEC_E2E_RUNSC=1 $(GO) test -race -count=1 -timeout 30m -run '^(TestCore|TestAdversarial|TestBackendConformance)$$/runsc' ./e2e/
# The same suites under crun, a pass of their own too.
E2E_CRUN = HOOKEXEC_E2E_CRUN=1 $(GO) test -race -count=1 -timeout 30m -run '^(TestCore|TestAdversarial|TestBackendConformance)$$/crun' ./e2e/
# The core and conformance suites on this machine's Docker as a remote engine,
# DOCKER_HOST=ssh:// through a real sshd on loopback: the engine's attach.
E2E_SSH = HOOKEXEC_E2E_SSH=1 $(GO) test -race -count=1 -timeout 30m -run '^(TestCore|TestBackendConformance)$$/docker-over-ssh' ./e2e/
# The core, adversarial and conformance suites on Podman through its
# Docker-compatible API, the reference images built there.
E2E_PODMAN = HOOKEXEC_E2E_PODMAN=1 $(GO) test -race -count=1 -timeout 30m -run '^(TestCore|TestAdversarial|TestBackendConformance)$$/podman|^TestPodman' ./e2e/
# A rootless dockerd the test starts as hookexec-rootless: the case suites
# where it enforces memory and pids limits (cgroup v2, delegated), else the
# refusal of every hook there (cgroup v1, as here).
E2E_ROOTLESS = HOOKEXEC_E2E_ROOTLESS=1 $(GO) test -race -count=1 -timeout 30m -run '^(TestCore|TestAdversarial|TestBackendConformance)$$/rootless|^TestRootless' ./e2e/

# The Kubernetes backend's suites (core and adversarial, case for case, and
# its own) on a real single-node cluster: scripts/k8s-cluster.sh builds its
# programs into bin/k8s once (about 13 minutes cold), brings it up, and
# takes it down again leaving nothing, whatever the suites did. As root.
K8S_STATE ?= /var/lib/hookexec-k8s
E2E_K8S = HOOKEXEC_E2E_K8S=1 KUBECONFIG=$(K8S_STATE)/kubeconfig \
	$(GO) test -race -count=1 -timeout 30m -run '^(TestCore|TestAdversarial|TestKilledOwnerIsReaped|TestBackendConformance)$$/kubernetes|^TestKubernetes' ./e2e/

k8s-tools:
	./scripts/prepare.sh apt k8s
	./scripts/k8s-cluster.sh build

e2e-k8s: images k8s-tools
	HOOKEXEC_K8S_STATE=$(K8S_STATE) ./scripts/k8s-cluster.sh up && $(E2E_K8S); \
		rc=$$?; HOOKEXEC_K8S_STATE=$(K8S_STATE) ./scripts/k8s-cluster.sh down; exit $$rc

# `make bench` with the Kubernetes backend's cold and pooled pods beside the
# other paths, on the same test cluster.
bench-k8s: images runsc crun k8s-tools
	HOOKEXEC_K8S_STATE=$(K8S_STATE) ./scripts/k8s-cluster.sh up && \
	HOOKEXEC_E2E_K8S=1 KUBECONFIG=$(K8S_STATE)/kubeconfig $(GO) test -run '^$$' -bench '^BenchmarkHarness$$' -benchtime 1x -count 1 -timeout 45m ./e2e/ >bench/latest-k8s.txt 2>&1; \
		rc=$$?; cat bench/latest-k8s.txt; HOOKEXEC_K8S_STATE=$(K8S_STATE) ./scripts/k8s-cluster.sh down; exit $$rc

# Everything, e2e included. The images and test tools come first when missing.
# The runsc, crun, ssh, Podman and rootless passes follow; the two measurements over the Go
# source tree then run without -race.
test: images testtools runsc crun sshd podman rootless
	HOOKEXEC_TEST_TOOLS=$(TOOLS) $(GO) test -race -count=1 -timeout 45m $(PKGS)
	$(E2E_RUNSC)
	$(E2E_CRUN)
	$(E2E_SSH)
	$(E2E_PODMAN)
	$(E2E_ROOTLESS)
	$(GO) test -count=1 -run '^(TestSecretScanFalsePositives|TestRedactionRates)$$' -v ./executor/handler/builtin ./hook

# `make test` with both cores loaded (stress-ng --cpu 2), as on a slow engine:
# every load and timeout in the suites is sized from a latency they measure.
test-slow: images testtools runsc crun sshd podman rootless
	@command -v stress-ng >/dev/null 2>&1 || apt-get install -y -q stress-ng >/dev/null || { echo "test-slow needs stress-ng (apt-get install stress-ng)"; exit 1; }
	stress-ng --cpu 2 --timeout 60m --quiet & pid=$$!; \
	HOOKEXEC_TEST_TOOLS=$(TOOLS) $(GO) test -race -count=1 -timeout 45m $(PKGS) && $(E2E_RUNSC) && $(E2E_CRUN) && $(E2E_SSH) && $(E2E_PODMAN) && $(E2E_ROOTLESS); rc=$$?; \
	kill $$pid; wait $$pid 2>/dev/null; exit $$rc

# What needs no engine.
unit: testtools
	HOOKEXEC_TEST_TOOLS=$(TOOLS) $(GO) test -race -short -count=1 $(PKGS)

e2e: images runsc crun sshd podman rootless
	$(GO) test -race -count=1 -timeout 30m ./e2e/...
	$(E2E_RUNSC)
	$(E2E_CRUN)
	$(E2E_SSH)
	$(E2E_PODMAN)
	$(E2E_ROOTLESS)

# The remote-engine pass alone (in `make test`).
e2e-ssh: images sshd
	$(E2E_SSH)

e2e-podman: images podman
	$(E2E_PODMAN)

e2e-rootless: images rootless
	$(E2E_ROOTLESS)

# Every path interleaved in one process; writes bench/results.json.
bench: images runsc crun podman
	HOOKEXEC_E2E_PODMAN=1 $(GO) test -run '^$$' -bench '^(BenchmarkHarness|BenchmarkCorpusInstalled)$$' -benchtime 1x -count 1 -timeout 30m ./e2e/ | tee bench/latest.txt

# 1000 mixed runs per backend at concurrency 8; the ordinary test run does a short one.
soak: images
	HOOKEXEC_SOAK_RUNS=1000 $(GO) test -count=1 -v -timeout 60m -run '^TestSoak$$' ./e2e/

# gofmt, vet, and the builds a Mac or Windows client of a remote engine needs.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build -o /dev/null ./cmd/...

# A real hook in a real sandbox: the example guard denies "rm -rf" and allows "ls".
demo: images
	./$(BIN) demo

# A short run of every fuzz target.
fuzz:
	@for pkg in $$(grep -rl --include=*_test.go "^func Fuzz" . | xargs -n1 dirname | sort -u); do \
		for t in $$($(GO) test -list 'Fuzz.*' $$pkg | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime 15s $$pkg || exit 1; \
		done; \
	done
