# hook-exec: every target runs from a fresh clone; see README.md.
GO      ?= go
BIN     := bin/hook-exec
PKGS    := ./...

.PHONY: build test unit e2e bench lint images demo fuzz soak

build:
	$(GO) build -o $(BIN) ./cmd/hook-exec

# The reference images, built from Debian packages through the Engine API;
# skipped when an image with the same inputs exists.
images: build
	./$(BIN) images build

# Everything, e2e included. The images are built first when missing.
test: images
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

# What needs no engine.
unit:
	$(GO) test -race -short -count=1 $(PKGS)

e2e: images
	$(GO) test -race -count=1 -timeout 30m ./e2e/...

# Every path interleaved in one process; writes bench/results.json.
bench: images
	$(GO) test -run '^$$' -bench '^BenchmarkHarness$$' -benchtime 1x -count 1 -timeout 30m ./e2e/ | tee bench/latest.txt

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
	@for pkg in ./scriptpin ./hook; do \
		for t in $$($(GO) test -list 'Fuzz.*' $$pkg | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime 15s $$pkg || exit 1; \
		done; \
	done
